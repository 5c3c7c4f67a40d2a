import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'DerivedExecutionEvents1766275200000';

/** Every event of the stream, as a reader sees it: in seq order, what it is about. */
async function stream(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.sql(
    `SELECT seq, type, from_status, to_status, retry_queued, cause, execution_id FROM events
      WHERE execution_id IS NOT NULL ORDER BY seq`,
  );
  return rows.map(
    (r) =>
      `${r.execution_id as string} ${r.type as string} ${String(r.from_status)}→${r.to_status as string}` +
      `${r.retry_queued ? ' retry queued' : ''}${r.cause ? ` (${r.cause as string})` : ''}`,
  );
}

/**
 * Moving an installation onto derived events keeps its history: events recorded as rows stay
 * rows, a run in flight at the move gets its later events from its row, and none comes twice or
 * goes missing. Going back writes the derived events as rows again.
 */
describe('the DerivedExecutionEvents migration', () => {
  let db: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
  });
  afterAll(() => closeMigratable(db, source));

  const insert = (id: string, jobId: string, retryOf: string | null = null) =>
    db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, retry_of,
         due_at, created_at)
       VALUES ($1, $2, 'true', 1, 60, 'QUEUED', CASE WHEN $3::uuid IS NULL THEN 1 ELSE 2 END,
               CASE WHEN $3::uuid IS NULL THEN 'MANUAL' ELSE 'RETRY' END, $3, now(), now())`,
      [id, jobId, retryOf],
    );
  const move = (id: string, status: string, extra = '') =>
    db.sql(
      `UPDATE executions SET status = $2,
         started_at = CASE WHEN $2 = 'RUNNING' THEN now() ELSE started_at END,
         finished_at = CASE WHEN $2 = 'RUNNING' THEN NULL ELSE now() END,
         worker_id = 'w' ${extra} WHERE id = $1`,
      [id, status],
    );

  it('keeps every event once, in order, across the move and back', async () => {
    await undoFrom(source, MIGRATION);
    const jobId = randomUUID();
    await insertJob(db, { id: jobId, name: 'moved' });
    const [done, failed, inFlight, waiting] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // through the old schema: a run that ended, one that failed and was retried, one running, one queued
    await insert(done, jobId);
    await move(done, 'RUNNING');
    await move(done, 'SUCCEEDED', ', exit_code = 0');
    await insert(failed, jobId);
    await move(failed, 'RUNNING');
    await db.sql('BEGIN');
    await move(failed, 'FAILED', `, exit_code = 1, error_message = 'Timed out', failure_cause = 'timeout'`);
    const retry = randomUUID();
    await insert(retry, jobId, failed);
    await db.sql('COMMIT');
    await insert(inFlight, jobId);
    await move(inFlight, 'RUNNING');
    await insert(waiting, jobId);
    const before = await stream(db);
    expect(before).toHaveLength(10);

    await source.runMigrations({ transaction: 'all' });
    expect(await stream(db)).toEqual(before);
    const { rows: stored } = await db.sql(`SELECT count(*)::int AS n FROM event_log WHERE execution_id IS NOT NULL`);
    expect(stored).toEqual([{ n: 10 }]);

    // after the move: the run in flight ends, the queued one starts and fails, and its retry is queued
    await move(inFlight, 'SUCCEEDED', ', exit_code = 0');
    await move(waiting, 'RUNNING');
    await db.sql('BEGIN');
    await move(waiting, 'FAILED', `, exit_code = 1, error_message = 'Worker lost', failure_cause = 'worker_lost'`);
    const second = randomUUID();
    await insert(second, jobId, waiting);
    await db.sql('COMMIT');
    const after = await stream(db);
    expect(after).toEqual([
      ...before,
      `${inFlight} execution.succeeded RUNNING→SUCCEEDED`,
      `${waiting} execution.running QUEUED→RUNNING`,
      `${waiting} execution.failed RUNNING→FAILED retry queued (worker_lost)`,
      `${second} execution.queued null→QUEUED`,
    ]);
    const { rows: written } = await db.sql(`SELECT count(*)::int AS n FROM event_log WHERE execution_id IS NOT NULL`);
    expect(written).toEqual([{ n: 11 }]); // the new runs' only row is the retry's queued event

    await undoFrom(source, MIGRATION);
    expect(await stream(db)).toEqual(after);
    await source.runMigrations({ transaction: 'all' });
    expect(await stream(db)).toEqual(after);
  });
});
