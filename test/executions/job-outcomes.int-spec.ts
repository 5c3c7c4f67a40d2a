import { randomUUID } from 'node:crypto';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

/**
 * job_outcomes holds the jobs that are failing, each with how many of its last runs failed in a
 * row, kept by the database as runs end, whoever ends them; runs of one job that end out of the
 * order they finished in count by when they finished.
 */
describe("a job's failing streak", () => {
  let db: TestDatabase;
  let jobId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());
  beforeEach(async () => {
    jobId = randomUUID();
    await insertJob(db, { id: jobId, name: `outcomes-${jobId}` });
  });

  /** A run of the job that ends with `status`, finishing `second` seconds after T0. */
  async function ends(status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED', second: number): Promise<void> {
    const id = randomUUID();
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $3, $3)`,
      [id, jobId, new Date(T0)],
    );
    await db.sql(`UPDATE executions SET status = 'RUNNING', started_at = $2, worker_id = 'w' WHERE id = $1`, [
      id,
      new Date(T0),
    ]);
    await db.sql(
      `UPDATE executions SET status = $2, finished_at = $3,
         exit_code = CASE $2 WHEN 'CANCELLED' THEN NULL WHEN 'FAILED' THEN 1 ELSE 0 END,
         error_message = CASE $2 WHEN 'FAILED' THEN 'exit 1' END
       WHERE id = $1`,
      [id, status, new Date(T0 + second * 1000)],
    );
  }
  const streak = async () =>
    (await db.sql(`SELECT failures_in_row FROM job_outcomes WHERE job_id = $1`, [jobId])).rows.map(
      (r) => r.failures_in_row as number,
    );

  it('successes keep no row; failures count; a success ends the streak', async () => {
    await ends('SUCCEEDED', 1);
    await ends('SUCCEEDED', 2);
    expect(await streak()).toEqual([]);
    await ends('FAILED', 3);
    await ends('FAILED', 4);
    await ends('CANCELLED', 5);
    await ends('FAILED', 6);
    expect(await streak()).toEqual([3]);
    await ends('SUCCEEDED', 7);
    expect(await streak()).toEqual([]);
  });

  it('a failure that finished before a later success of its job starts no streak', async () => {
    await ends('SUCCEEDED', 10);
    await ends('FAILED', 5);
    expect(await streak()).toEqual([]);
  });

  it('a success that finished before the failure that started the streak does not end it', async () => {
    await ends('FAILED', 10);
    await ends('SUCCEEDED', 5);
    expect(await streak()).toEqual([1]);
    await ends('FAILED', 8); // finished before the streak's last failure: not counted
    expect(await streak()).toEqual([1]);
    await ends('FAILED', 12);
    expect(await streak()).toEqual([2]);
  });

  it('a success writes no row version to job_outcomes', async () => {
    await ends('SUCCEEDED', 1);
    const writes = async () =>
      Number(
        (
          await db.sql(
            `SELECT n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_xact_user_tables WHERE relname = 'job_outcomes'`,
          )
        ).rows[0]?.n ?? 0,
      );
    await db.sql('BEGIN');
    try {
      const before = await writes();
      await ends('SUCCEEDED', 2);
      expect(await writes()).toBe(before);
      await ends('FAILED', 3);
      expect(await writes()).toBe(before + 1);
    } finally {
      await db.sql('ROLLBACK');
    }
  });
});
