import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's job is checked once, as the run is queued, instead of again as it moves into the
 * history. The foreign key to `jobs` was on the partitioned `executions`, so the move (a delete
 * from `executions_active` and an insert into `executions_history`) checked it a second time:
 * a query and a lock on the job's row for every run that ends, which runs of one job share
 * (at c8, 15–30 µs of PostgreSQL's CPU per insert, measured apart).
 *
 * The key moves to `executions_active`, where every run enters. A run reaches the history only
 * from there, keeping its job; and jobs are never deleted (a deleted job keeps its row and its
 * `deleted_at`), so what the key refused, deleting a job that still has runs, a trigger on
 * `jobs` refuses, with the same error code.
 */
export class JobCheckedAtEnqueue1766509200000 implements MigrationInterface {
  name = 'JobCheckedAtEnqueue1766509200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_job_id_fkey`);
    await db.query(
      `ALTER TABLE executions_active ADD CONSTRAINT executions_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id)`,
    );
    await db.query(`
      CREATE FUNCTION orbit_refuse_deleting_job_with_runs() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM executions_history WHERE job_id = OLD.id) THEN
          RAISE EXCEPTION 'Job % still has runs in the history', OLD.id
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'executions_history_job_id_check';
        END IF;
        RETURN OLD;
      END $$`);
    await db.query(`CREATE TRIGGER jobs_keep_history_job BEFORE DELETE ON jobs
      FOR EACH ROW EXECUTE FUNCTION orbit_refuse_deleting_job_with_runs()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER jobs_keep_history_job ON jobs`);
    await db.query(`DROP FUNCTION orbit_refuse_deleting_job_with_runs()`);
    await db.query(`ALTER TABLE executions_active DROP CONSTRAINT executions_job_id_fkey`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id)`,
    );
  }
}
