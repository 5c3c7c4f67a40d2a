import { MigrationInterface, QueryRunner } from 'typeorm';

/** The JobOutcomes migration's trigger function, which keeps a row for every job that ever ended a run. */
const EVERY_JOB = `
  CREATE OR REPLACE FUNCTION orbit_record_job_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO job_outcomes AS o (job_id, last_status, last_finished_at, failures_in_row)
    VALUES (NEW.job_id, NEW.status, NEW.finished_at, CASE WHEN NEW.status = 'FAILED' THEN 1 ELSE 0 END)
    ON CONFLICT (job_id) DO UPDATE
      SET last_status = EXCLUDED.last_status,
          last_finished_at = EXCLUDED.last_finished_at,
          failures_in_row = CASE WHEN EXCLUDED.last_status = 'FAILED' THEN o.failures_in_row + 1 ELSE 0 END
      WHERE o.last_finished_at <= EXCLUDED.last_finished_at;
    RETURN NULL;
  END $$`;

/**
 * Only the failing jobs are read from job_outcomes (the Jobs list's `failing` filter, the
 * Overview's jobs that fail repeatedly), so only they keep a row: a success, the common end of
 * a run, deletes the row of a job that was failing and is otherwise one index probe that writes
 * nothing (it used to update the job's row at every end). A failure that finished before a later
 * success of its job, which such a row used to remember, is found among the job's finished runs
 * (executions_finished_idx) and starts no streak.
 */
export class FailingJobOutcomes1766282400000 implements MigrationInterface {
  name = 'FailingJobOutcomes1766282400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION orbit_record_job_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'SUCCEEDED' THEN
          DELETE FROM job_outcomes WHERE job_id = NEW.job_id AND last_finished_at <= NEW.finished_at;
        ELSIF NOT EXISTS (
          SELECT 1 FROM executions
           WHERE job_id = NEW.job_id AND finished_at > NEW.finished_at AND status = 'SUCCEEDED'
        ) THEN
          INSERT INTO job_outcomes AS o (job_id, last_status, last_finished_at, failures_in_row)
          VALUES (NEW.job_id, 'FAILED', NEW.finished_at, 1)
          ON CONFLICT (job_id) DO UPDATE
            SET last_finished_at = EXCLUDED.last_finished_at, failures_in_row = o.failures_in_row + 1
            WHERE o.last_finished_at <= EXCLUDED.last_finished_at;
        END IF;
        RETURN NULL;
      END $$`);
    await db.query(`DELETE FROM job_outcomes WHERE failures_in_row = 0`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(EVERY_JOB);
    // the jobs whose last run succeeded, as the JobOutcomes migration found them
    await db.query(`
      INSERT INTO job_outcomes (job_id, last_status, last_finished_at, failures_in_row)
      SELECT DISTINCT ON (job_id) job_id, status, finished_at, 0
        FROM executions
       WHERE status IN ('SUCCEEDED', 'FAILED') AND finished_at IS NOT NULL
         AND job_id NOT IN (SELECT job_id FROM job_outcomes)
       ORDER BY job_id, finished_at DESC`);
  }
}
