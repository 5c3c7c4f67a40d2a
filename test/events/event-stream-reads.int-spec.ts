import { randomUUID } from 'node:crypto';
import { AFTER, LATEST, NO_BOUND } from '../../src/events/infrastructure/sql-event-log.js';
import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const RUNS = 20_000;

/**
 * A run's start and end are read from its row: the stream's reads walk each part's seq index
 * (the log's, the rows' started and finished seqs) from the cursor on, so a read costs the same
 * few pages behind 20,000 finished runs as behind none, and a page more per day the log and the
 * history keep (each day has its own index). Counted in buffers, which no machine's speed changes.
 */
describe("the stream's reads behind a long history", () => {
  let db: TestDatabase;
  let newest: number;
  /** The days (partitions) of the log and of the history: each has its seq indexes. */
  let days: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    const jobId = randomUUID();
    await insertJob(db, { id: jobId, name: 'history' });
    // through the triggers, as runs are made: queued (a row of the log), started, then finished (seqs on the row)
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(1, $2)`,
      [jobId, RUNS],
    );
    await db.sql(`UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'w'`);
    await db.sql(`UPDATE executions SET status = 'SUCCEEDED', finished_at = now(), exit_code = 0`);
    await db.sql('VACUUM ANALYZE executions, event_log');
    newest = Number((await db.sql(`SELECT max(seq) AS seq FROM events`)).rows[0].seq);
    const { rows } = await db.sql(
      `SELECT count(*)::int AS days FROM pg_inherits WHERE inhparent IN ('event_log'::regclass, 'executions_history'::regclass)`,
    );
    days = (rows[0] as { days: number }).days;
  }, 120_000);
  afterAll(() => db?.drop());

  it('holds three events for each run, in the order of the changes', async () => {
    const { rows } = await db.sql(
      `SELECT type, count(*)::int AS n, min(seq) AS first FROM events WHERE execution_id IS NOT NULL GROUP BY type ORDER BY min(seq)`,
    );
    expect(rows.map((r) => [r.type, r.n])).toEqual([
      ['execution.queued', RUNS],
      ['execution.running', RUNS],
      ['execution.succeeded', RUNS],
    ]);
    expect(newest).toBeGreaterThanOrEqual(3 * RUNS);
  });

  it.each([
    ['from the first event', () => 0],
    ['from the middle of the history', () => Math.floor(newest / 2)],
    ['near its end', () => newest - 50],
  ])('a page of 100 %s reads a few pages, not the history', async (_, after) => {
    const read = await planCost(db.sql, AFTER, [after(), NO_BOUND, 100]);
    expect(read.rows).toBe(Math.min(100, newest - after()));
    expect(read.buffers).toBeLessThan(40 + 2 * days);
  });

  it('the newest seq reads the end of each seq index', async () => {
    const read = await planCost(db.sql, LATEST);
    expect(read.rows).toBe(1);
    expect(read.buffers).toBeLessThan(10 + 2 * days);
  });
});
