import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The history's index `from` made again as `to` in `shape`; its part on the history from before the
 * days under the name the HistoryByDay migration's pattern gives it.
 */
async function remake(db: QueryRunner, from: string, to: string, shape: string): Promise<void> {
  await db.query(`CREATE INDEX ${to} ON executions_history ${shape}`);
  await db.query(`DROP INDEX ${from}`);
  const [legacy] = (await db.query(
    `SELECT c.relname AS part FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.inhparent = $1::regclass AND x.indrelid = to_regclass('executions_h_legacy')`,
    [to],
  )) as { part: string }[];
  if (legacy)
    await db.query(`ALTER INDEX ${legacy.part} RENAME TO ${to.replace(/^executions_/, 'executions_h_legacy_')}`);
}

/**
 * The history's index of each job's runs by end keeps its failed runs only
 * (`executions_failed_idx`, replacing `executions_finished_idx`), so a run that succeeds enters
 * one B-tree fewer as it ends. What read it for every run reads another index:
 *
 * - a job's recent runs (the bars beside a job) are its newest finished runs by creation, from
 *   `executions_job_newest_idx`, in the order its list of runs shows them;
 * - the runs a day of the history keeps for having ended after retention's line are read by the
 *   block range index of ends (`executions_ended_idx`), once for the day rather than once per job;
 * - the oldest run retention has yet to delete is each job's first created one it would delete.
 *
 * The failing streaks read failed runs only, by end, as before. Built on every day and on the
 * history from before the days, reading each once; nothing else is read or written.
 */
export class FailedRunsByEnd1766552400000 implements MigrationInterface {
  name = 'FailedRunsByEnd1766552400000';

  async up(db: QueryRunner): Promise<void> {
    await remake(
      db,
      'executions_finished_idx',
      'executions_failed_idx',
      `(job_id, finished_at DESC) WHERE status = 'FAILED'`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await remake(
      db,
      'executions_failed_idx',
      'executions_finished_idx',
      `(job_id, finished_at DESC) WHERE finished_at IS NOT NULL`,
    );
  }
}
