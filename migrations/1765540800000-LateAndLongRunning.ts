import { MigrationInterface, QueryRunner } from 'typeorm';

/** What up() runs, in order: literal SQL, as it ran on every installation. */
const UP = [
  `
      ALTER TABLE jobs
        ADD COLUMN late_after_seconds integer CHECK (late_after_seconds > 0),
        ADD COLUMN max_duration_seconds integer CHECK (max_duration_seconds > 0)`,
  `
      CREATE TABLE job_late_watches (
        job_id uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        due_at timestamptz NOT NULL
      )`,
  `CREATE INDEX job_late_watches_due_idx ON job_late_watches (due_at)`,
  `
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
  END $$`,
  `
      CREATE TRIGGER jobs_late_watch
      AFTER INSERT OR UPDATE OF late_after_seconds, enabled, deleted_at, cron_expression, timezone ON jobs
      FOR EACH ROW EXECUTE FUNCTION orbit_arm_late_watch()`,
  `
      ALTER TABLE executions
        ADD COLUMN max_duration_seconds integer CHECK (max_duration_seconds > 0),
        ADD COLUMN long_running_noticed boolean NOT NULL DEFAULT false`,
  `
      CREATE INDEX executions_long_running_idx ON executions (started_at)
       WHERE status = 'RUNNING' AND max_duration_seconds IS NOT NULL AND NOT long_running_noticed`,
  `DROP TRIGGER IF EXISTS executions_write_response_json ON executions`,
  `ALTER TABLE executions DROP COLUMN IF EXISTS response_json`,
  `DROP FUNCTION IF EXISTS orbit_write_execution_json()`,
  `DROP FUNCTION IF EXISTS orbit_execution_json(executions)`,
  `DROP TYPE IF EXISTS orbit_execution_response`,
  `
    CREATE TYPE orbit_execution_response AS (
      "id" uuid, "jobId" uuid, "command" text, "maxRetries" integer, "timeoutSeconds" integer, "status" text, "attempt" integer, "trigger" text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text, "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text, "workerSelector" jsonb, "pinnedWorker" text, "maxConcurrent" integer, "concurrencyGroup" text, "priority" smallint, "waitingFor" text, "parameters" jsonb, "triggeredBy" uuid, "maxDurationSeconds" integer
    )`,
  `
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger, to_char(e.scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.retry_of, to_char(e.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.exit_code, e.error_message, e.worker_id, e.worker_selector, e.pinned_worker, e.max_concurrent, e.concurrency_group, e.priority, e.waiting_for, e.parameters, e.triggered_by, e.max_duration_seconds
      )::orbit_execution_response)::text;
    END $$`,
  `CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`,
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds
    ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`,
  `CREATE INDEX deliveries_finished_idx ON deliveries (finished_at) WHERE status <> 'PENDING'`,
  `CREATE INDEX alert_job_states_updated_idx ON alert_job_states (updated_at)`,
];

/** What down() runs, in order. */
const DOWN = [
  `DROP INDEX alert_job_states_updated_idx`,
  `DROP INDEX deliveries_finished_idx`,
  `DROP TRIGGER IF EXISTS executions_write_response_json ON executions`,
  `ALTER TABLE executions DROP COLUMN IF EXISTS response_json`,
  `DROP FUNCTION IF EXISTS orbit_write_execution_json()`,
  `DROP FUNCTION IF EXISTS orbit_execution_json(executions)`,
  `DROP TYPE IF EXISTS orbit_execution_response`,
  `
    CREATE TYPE orbit_execution_response AS (
      "id" uuid, "jobId" uuid, "command" text, "maxRetries" integer, "timeoutSeconds" integer, "status" text, "attempt" integer, "trigger" text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text, "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text, "workerSelector" jsonb, "pinnedWorker" text, "maxConcurrent" integer, "concurrencyGroup" text, "priority" smallint, "waitingFor" text, "parameters" jsonb, "triggeredBy" uuid
    )`,
  `
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger, to_char(e.scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.retry_of, to_char(e.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.exit_code, e.error_message, e.worker_id, e.worker_selector, e.pinned_worker, e.max_concurrent, e.concurrency_group, e.priority, e.waiting_for, e.parameters, e.triggered_by
      )::orbit_execution_response)::text;
    END $$`,
  `CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`,
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by
    ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`,
  `DROP INDEX executions_long_running_idx`,
  `ALTER TABLE executions DROP COLUMN long_running_noticed, DROP COLUMN max_duration_seconds`,
  `DROP TRIGGER jobs_late_watch ON jobs`,
  `DROP FUNCTION orbit_arm_late_watch`,
  `DROP TABLE job_late_watches`,
  `ALTER TABLE jobs DROP COLUMN max_duration_seconds, DROP COLUMN late_after_seconds`,
];

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

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
