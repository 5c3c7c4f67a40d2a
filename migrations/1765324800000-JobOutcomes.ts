import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How each job's runs ended lately, kept by the database as they end: the status of its last
 * run that succeeded or failed, and how many of its last runs failed in a row. The Jobs list
 * filters on it (`failing=true`) and the Overview names the jobs that fail repeatedly, each with
 * one index read instead of a search of every job's newest execution. A cancelled run is neither.
 */
export class JobOutcomes1765324800000 implements MigrationInterface {
  name = 'JobOutcomes1765324800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE job_outcomes (
        job_id uuid PRIMARY KEY,
        last_status text NOT NULL CHECK (last_status IN ('SUCCEEDED', 'FAILED')),
        last_finished_at timestamptz NOT NULL,
        failures_in_row integer NOT NULL CHECK (failures_in_row >= 0)
      )`);
    await db.query(
      `CREATE INDEX job_outcomes_failing_idx ON job_outcomes (failures_in_row DESC, job_id) WHERE failures_in_row > 0`,
    );
    // a run that ends after one that finished later (concurrent runs) does not turn the record back
    await db.query(`
      CREATE FUNCTION orbit_record_job_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO job_outcomes AS o (job_id, last_status, last_finished_at, failures_in_row)
        VALUES (NEW.job_id, NEW.status, NEW.finished_at, CASE WHEN NEW.status = 'FAILED' THEN 1 ELSE 0 END)
        ON CONFLICT (job_id) DO UPDATE
          SET last_status = EXCLUDED.last_status,
              last_finished_at = EXCLUDED.last_finished_at,
              failures_in_row = CASE WHEN EXCLUDED.last_status = 'FAILED' THEN o.failures_in_row + 1 ELSE 0 END
          WHERE o.last_finished_at <= EXCLUDED.last_finished_at;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_job_outcome AFTER UPDATE OF status ON executions
      FOR EACH ROW WHEN (NEW.status IN ('SUCCEEDED', 'FAILED') AND OLD.status IS DISTINCT FROM NEW.status
                         AND NEW.finished_at IS NOT NULL)
      EXECUTE FUNCTION orbit_record_job_outcome()`);
    // the runs that ended before this migration
    await db.query(`
      INSERT INTO job_outcomes (job_id, last_status, last_finished_at, failures_in_row)
      SELECT last.job_id, last.status, last.finished_at,
             (SELECT count(*) FROM executions f
               WHERE f.job_id = last.job_id AND f.status = 'FAILED' AND f.finished_at IS NOT NULL
                 AND f.finished_at > coalesce(
                   (SELECT max(s.finished_at) FROM executions s WHERE s.job_id = last.job_id AND s.status = 'SUCCEEDED'),
                   '-infinity'))
        FROM (SELECT DISTINCT ON (job_id) job_id, status, finished_at
                FROM executions
               WHERE status IN ('SUCCEEDED', 'FAILED') AND finished_at IS NOT NULL
               ORDER BY job_id, finished_at DESC) AS last`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER executions_job_outcome ON executions`);
    await db.query(`DROP FUNCTION orbit_record_job_outcome`);
    await db.query(`DROP TABLE job_outcomes`);
  }
}
