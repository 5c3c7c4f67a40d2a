import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { planCost } from '../support/plan-cost.js';
import { runBySql } from '../support/runs-by-sql.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'CreatedSeqOnTheRow1766538000000';
const T0 = new Date('2026-12-01T03:00:05.000Z');

/**
 * A run's created event is written under the seq its row holds, so the log's index by run keeps
 * the events written before that was so: a run's events are still found, and deleted with it,
 * whichever side of the change it was queued on.
 */
describe("a run's created event under its row's seq", () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;
  const { queue: queueOf, start, finish } = runBySql(() => db, T0);

  /** A run queued, started and ended, with a notice of its own (written as the watcher writes one). */
  const fullRun = async () => {
    const id = await queueOf(jobId);
    await start(id);
    await db.sql(
      `INSERT INTO event_log (type, at, job_id, execution_id, worker_id) VALUES ('execution.long_running', $2, $3, $1, 'w1')`,
      [id, T0, jobId],
    );
    await finish(id);
    return id;
  };
  const eventsOf = async (id: string) =>
    (await db.sql(`SELECT type FROM events WHERE execution_id = $1 ORDER BY seq`, [id])).rows.map((row) => row.type);
  const ALL = ['execution.queued', 'execution.running', 'execution.long_running', 'execution.succeeded'];

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    jobId = await insertJob(db, { id: randomUUID(), name: 'created-seq' });
  });
  afterAll(() => closeMigratable(db, source));

  it("holds the created event's seq on the row, and takes each seq once, in order", async () => {
    const first = await queueOf(jobId);
    const second = await queueOf(jobId);
    const { rows } = await db.sql(
      `SELECT e.created_seq::int AS row, l.seq::int AS event, l.type FROM executions e JOIN event_log l ON l.execution_id = e.id
        WHERE e.id = ANY ($1::uuid[]) ORDER BY l.seq`,
      [[first, second]],
    );
    expect(rows).toEqual([
      { row: expect.any(Number), event: rows[0].row, type: 'execution.queued' },
      { row: rows[0].row + 1, event: rows[0].row + 1, type: 'execution.queued' },
    ]);
  });

  it('a run deleted takes all its events, queued before the change or after', async () => {
    await undoFrom(source, MIGRATION);
    const before = await fullRun();
    await source.runMigrations({ transaction: 'all' });
    const after = await fullRun();
    expect(await eventsOf(before)).toEqual(ALL);
    expect(await eventsOf(after)).toEqual(ALL);
    const { rows } = await db.sql(
      `SELECT id, created_seq FROM executions WHERE id = ANY ($1::uuid[]) ORDER BY created_at, id`,
      [[before, after]],
    );
    expect(rows.find((row) => row.id === before)).toEqual({ id: before, created_seq: null });

    await db.sql(`DELETE FROM executions WHERE id = ANY ($1::uuid[])`, [[before, after]]);
    expect(await eventsOf(before)).toEqual([]);
    expect(await eventsOf(after)).toEqual([]);
  });

  it("finds a deleted run's created event by the log's primary key, in a few pages however long the log", async () => {
    const others = await insertJob(db, { id: randomUUID(), name: 'others' });
    await db.sql(
      `INSERT INTO event_log (type, at, job_id, execution_id) SELECT 'execution.long_running', $1, $2, gen_random_uuid()
         FROM generate_series(1, 100000)`,
      [T0, others],
    );
    await db.sql('ANALYZE event_log');
    const id = await fullRun();
    const { rows } = await db.sql(`SELECT created_seq, created_at FROM executions WHERE id = $1`, [id]);
    const deletion = await planCost(
      db.sql,
      `SELECT orbit_delete_run_events(ARRAY[$1::uuid], ARRAY[$2::bigint], ARRAY[$3::timestamptz])`,
      [id, rows[0].created_seq, rows[0].created_at],
    );
    // the log's 100,000 events fill about 1,500 pages: each index is probed, nothing is scanned
    expect(deletion.buffers).toBeLessThan(300);
  });

  it('goes back: the log indexes every event by run again, and the stream is unchanged', async () => {
    const id = await fullRun();
    const stream = async () =>
      (await db.sql(`SELECT * FROM events WHERE job_id = $1 ORDER BY seq`, [jobId])).rows.map((row) =>
        JSON.stringify(row),
      );
    const streamed = await stream();
    await undoFrom(source, MIGRATION);
    expect(await stream()).toEqual(streamed);
    const { rows } = await db.sql(`SELECT indexdef FROM pg_indexes WHERE indexname = 'events_execution_idx'`);
    expect(rows).toEqual([{ indexdef: expect.stringMatching(/USING btree \(execution_id\)$/) }]);
    await db.sql(`DELETE FROM executions WHERE id = $1`, [id]);
    expect(await eventsOf(id)).toEqual([]);
    await source.runMigrations({ transaction: 'all' });
  });
});
