import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceExecutionResponseJson, ResponseField } from './helpers/execution-response-json.js';
import { FIELDS as PREVIOUS_FIELDS } from './1765497600000-ChainsAndParameters.js';

/** ExecutionResponse's fields: the ChainsAndParameters migration's, then this one. */
const FIELDS: ResponseField[] = [...PREVIOUS_FIELDS, ['maxDurationSeconds', 'max_duration_seconds', 'integer']];

/**
 * Arms, moves or drops a job's late watch when what it depends on changes: the watch starts at
 * the job's next slot when the job gets a `late_after_seconds`, is enabled again or gets another
 * schedule (the slots of an old schedule mean nothing); a new limit alone keeps the slot it was
 * at, so no slot is watched twice or skipped. The scheduler's moves of next_run_at are no
 * change of the job's and do not fire it.
 */
const ARM_LATE_WATCH = `
  CREATE FUNCTION orbit_arm_late_watch() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.late_after_seconds IS NULL OR NOT NEW.enabled OR NEW.deleted_at IS NOT NULL OR NEW.next_run_at IS NULL THEN
      DELETE FROM job_late_watches WHERE job_id = NEW.id;
    ELSIF TG_OP = 'INSERT' OR OLD.late_after_seconds IS NULL OR NOT OLD.enabled
          OR OLD.cron_expression <> NEW.cron_expression OR OLD.timezone <> NEW.timezone THEN
      INSERT INTO job_late_watches (job_id, slot, due_at)
      VALUES (NEW.id, NEW.next_run_at, NEW.next_run_at + NEW.late_after_seconds * interval '1 second')
      ON CONFLICT (job_id) DO UPDATE SET slot = EXCLUDED.slot, due_at = EXCLUDED.due_at;
    ELSIF OLD.late_after_seconds <> NEW.late_after_seconds THEN
      UPDATE job_late_watches SET due_at = slot + NEW.late_after_seconds * interval '1 second' WHERE job_id = NEW.id;
    END IF;
    RETURN NULL;
  END $$`;

/**
 * The `late` and `long_running` watches. A job's `late_after_seconds` arms a late watch: the
 * next slot to look at and when it is due (the slot plus the limit), one row per watched job, so
 * a watcher pass reads only the watches due (job_late_watches_due_idx), whatever the number of
 * jobs; it moves the slot on in the transaction that appends the `slot.late` events, under the
 * row's lock, so every slot is judged once. A job's `max_duration_seconds` is copied to each run
 * (as timeout_seconds is: a run keeps the rules it started with, and the watcher reads one
 * table); `long_running_noticed` turns true in the transaction that appends the run's
 * `execution.long_running`, so it is told once. executions_long_running_idx holds the RUNNING
 * runs with a limit not yet told: as many as run at once, never the history.
 */
export class LateAndLongRunning1765540800000 implements MigrationInterface {
  name = 'LateAndLongRunning1765540800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE jobs
        ADD COLUMN late_after_seconds integer CHECK (late_after_seconds > 0),
        ADD COLUMN max_duration_seconds integer CHECK (max_duration_seconds > 0)`);
    await db.query(`
      CREATE TABLE job_late_watches (
        job_id uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        due_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX job_late_watches_due_idx ON job_late_watches (due_at)`);
    await db.query(ARM_LATE_WATCH);
    await db.query(`
      CREATE TRIGGER jobs_late_watch
      AFTER INSERT OR UPDATE OF late_after_seconds, enabled, deleted_at, cron_expression, timezone ON jobs
      FOR EACH ROW EXECUTE FUNCTION orbit_arm_late_watch()`);

    await db.query(`
      ALTER TABLE executions
        ADD COLUMN max_duration_seconds integer CHECK (max_duration_seconds > 0),
        ADD COLUMN long_running_noticed boolean NOT NULL DEFAULT false`);
    await db.query(`
      CREATE INDEX executions_long_running_idx ON executions (started_at)
       WHERE status = 'RUNNING' AND max_duration_seconds IS NOT NULL AND NOT long_running_noticed`);
    await replaceExecutionResponseJson(db, FIELDS);

    // retention of alerts (see AlertRetention): the finished deliveries by age, the job states by age
    await db.query(`CREATE INDEX deliveries_finished_idx ON deliveries (finished_at) WHERE status <> 'PENDING'`);
    await db.query(`CREATE INDEX alert_job_states_updated_idx ON alert_job_states (updated_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX alert_job_states_updated_idx`);
    await db.query(`DROP INDEX deliveries_finished_idx`);
    await replaceExecutionResponseJson(db, PREVIOUS_FIELDS);
    await db.query(`DROP INDEX executions_long_running_idx`);
    await db.query(`ALTER TABLE executions DROP COLUMN long_running_noticed, DROP COLUMN max_duration_seconds`);
    await db.query(`DROP TRIGGER jobs_late_watch ON jobs`);
    await db.query(`DROP FUNCTION orbit_arm_late_watch`);
    await db.query(`DROP TABLE job_late_watches`);
    await db.query(`ALTER TABLE jobs DROP COLUMN max_duration_seconds, DROP COLUMN late_after_seconds`);
  }
}
