import { randomUUID } from 'node:crypto';
import type { TestDatabase } from './test-database.js';
import { waitFor } from './wait.js';

/**
 * A run's three writes as SQL makes them, through the triggers, all at `at` (the end a second
 * later): queue one of a job, start it, end it (SUCCEEDED, or FAILED with exit code 1 and its
 * message). `database` is read at each write: a test's database is made in its beforeAll.
 */
export function runBySql(database: () => Pick<TestDatabase, 'sql'>, at: Date) {
  const db = { sql: (text: string, params?: unknown[]) => database().sql(text, params) };
  return {
    queue: async (jobId: string): Promise<string> => {
      const id = randomUUID();
      await db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
         VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $3, $3)`,
        [id, jobId, at],
      );
      return id;
    },
    start: (id: string) =>
      db.sql(
        `UPDATE executions SET status = 'RUNNING', started_at = $2, worker_id = 'w1', lease_expires_at = $2::timestamptz + interval '1 min'
          WHERE id = $1`,
        [id, at],
      ),
    finish: (id: string, status: 'SUCCEEDED' | 'FAILED' = 'SUCCEEDED') =>
      db.sql(
        `UPDATE executions SET status = $3, finished_at = $2, exit_code = $4, error_message = $5, lease_expires_at = NULL
          WHERE id = $1`,
        [
          id,
          new Date(at.getTime() + 1000),
          status,
          ...(status === 'SUCCEEDED' ? [0, null] : [1, 'Exited with code 1']),
        ],
      ),
  };
}

/**
 * The span of the WAL `write` wrote (its insert positions before and after), once the log holds
 * it: commits in the tests are asynchronous. The log is the cluster's; other tests' databases
 * write to it too.
 */
export async function walSpanOf(
  db: Pick<TestDatabase, 'sql'>,
  write: () => Promise<unknown>,
): Promise<{ from: string; to: string }> {
  const lsn = async () => (await db.sql(`SELECT pg_current_wal_insert_lsn()::text AS lsn`)).rows[0].lsn as string;
  const from = await lsn();
  await write();
  const to = await lsn();
  await waitFor(
    async () =>
      (await db.sql(`SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS flushed`, [to])).rows[0].flushed || undefined,
    'the WAL to be flushed',
  );
  return { from, to };
}
