import type { TestDatabase } from './test-database.js';

/**
 * Inserts SUCCEEDED runs of `jobId` by SQL (or FAILED ones), one per distinct instant of
 * `createdAt`, each finished a minute after it was created (or QUEUED since); answers their ids
 * in the order given.
 */
export async function insertRuns(
  db: Pick<TestDatabase, 'sql'>,
  jobId: string,
  createdAt: readonly Date[],
  status: 'SUCCEEDED' | 'FAILED' | 'QUEUED' = 'SUCCEEDED',
): Promise<string[]> {
  const done = status !== 'QUEUED';
  const { rows } = await db.sql(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
       created_at, started_at, finished_at, exit_code, error_message)
     SELECT gen_random_uuid(), $1, 'true', 0, 60, $3, 1, 'MANUAL', at, at,
            CASE WHEN $4 THEN at END, CASE WHEN $4 THEN at + interval '1 minute' END,
            CASE $3 WHEN 'SUCCEEDED' THEN 0 WHEN 'FAILED' THEN 1 END, CASE WHEN $3 = 'FAILED' THEN 'exit code 1' END
       FROM unnest($2::timestamptz[]) WITH ORDINALITY AS given (at, n)
      ORDER BY n
     RETURNING id, created_at`,
    [jobId, createdAt, status, done],
  );
  const byTime = new Map((rows as { id: string; created_at: Date }[]).map((row) => [row.created_at.getTime(), row.id]));
  return createdAt.map((at) => byTime.get(at.getTime())!);
}
