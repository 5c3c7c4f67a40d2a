import { MigrationInterface, QueryRunner } from 'typeorm';

/** What up() runs, in order: literal SQL, as it ran on every installation. */
const UP = [
  `ALTER TABLE jobs ALTER COLUMN cron_expression DROP NOT NULL`,
  `ALTER TABLE jobs ADD COLUMN triggers jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE jobs ADD COLUMN parameters jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE jobs ADD COLUMN starts_at timestamptz`,
  `ALTER TABLE jobs ADD COLUMN ends_at timestamptz`,
  `ALTER TABLE jobs ADD COLUMN jitter_seconds integer NOT NULL DEFAULT 0 CHECK (jitter_seconds BETWEEN 0 AND 3600)`,
  `ALTER TABLE jobs ADD CONSTRAINT jobs_window_check CHECK (ends_at >= starts_at)`,
  `ALTER TABLE executions ADD COLUMN parameters jsonb NOT NULL DEFAULT '{}'`,
  `ALTER TABLE executions ADD COLUMN triggered_by uuid`,
  `ALTER TABLE executions ADD COLUMN upstream_status text`,
  `ALTER TABLE executions DROP CONSTRAINT executions_trigger_check`,
  `ALTER TABLE executions ADD CONSTRAINT executions_trigger_check
         CHECK (trigger IN ('MANUAL', 'SCHEDULE', 'RETRY', 'CHAIN', 'BACKFILL'))`,
  `ALTER TABLE executions DROP CONSTRAINT executions_schedule_slot_check`,
  `
      ALTER TABLE executions ADD CONSTRAINT executions_schedule_slot_check CHECK (
        CASE trigger WHEN 'SCHEDULE' THEN scheduled_for IS NOT NULL WHEN 'BACKFILL' THEN scheduled_for IS NOT NULL
                     WHEN 'RETRY' THEN true ELSE scheduled_for IS NULL END)`,
  `
      ALTER TABLE executions ADD CONSTRAINT executions_triggered_by_check CHECK (
        CASE trigger WHEN 'CHAIN' THEN triggered_by IS NOT NULL AND upstream_status IS NOT NULL
                     WHEN 'RETRY' THEN (triggered_by IS NULL) = (upstream_status IS NULL)
                     ELSE triggered_by IS NULL AND upstream_status IS NULL END)`,
  `DROP INDEX executions_job_slot_key`,
  `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
         WHERE trigger IN ('SCHEDULE', 'BACKFILL')`,
  `CREATE UNIQUE INDEX executions_chain_key ON executions (job_id, triggered_by) WHERE trigger = 'CHAIN'`,
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
];

/** What down() runs, in order. */
const DOWN = [
  `DROP TRIGGER IF EXISTS executions_write_response_json ON executions`,
  `ALTER TABLE executions DROP COLUMN IF EXISTS response_json`,
  `DROP FUNCTION IF EXISTS orbit_write_execution_json()`,
  `DROP FUNCTION IF EXISTS orbit_execution_json(executions)`,
  `DROP TYPE IF EXISTS orbit_execution_response`,
  `
    CREATE TYPE orbit_execution_response AS (
      "id" uuid, "jobId" uuid, "command" text, "maxRetries" integer, "timeoutSeconds" integer, "status" text, "attempt" integer, "trigger" text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text, "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text, "workerSelector" jsonb, "pinnedWorker" text, "maxConcurrent" integer, "concurrencyGroup" text, "priority" smallint, "waitingFor" text
    )`,
  `
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger, to_char(e.scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.retry_of, to_char(e.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.exit_code, e.error_message, e.worker_id, e.worker_selector, e.pinned_worker, e.max_concurrent, e.concurrency_group, e.priority, e.waiting_for
      )::orbit_execution_response)::text;
    END $$`,
  `CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`,
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for
    ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`,
  `DROP INDEX executions_chain_key`,
  `DROP INDEX executions_job_slot_key`,
  `ALTER TABLE executions DROP CONSTRAINT executions_triggered_by_check`,
  `ALTER TABLE executions DROP CONSTRAINT executions_schedule_slot_check`,
  `UPDATE executions SET trigger = 'MANUAL', scheduled_for = NULL WHERE trigger IN ('CHAIN', 'BACKFILL')`,
  `UPDATE executions SET scheduled_for = NULL WHERE trigger = 'RETRY'`,
  `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
         WHERE trigger = 'SCHEDULE'`,
  `ALTER TABLE executions ADD CONSTRAINT executions_schedule_slot_check CHECK ((trigger = 'SCHEDULE') = (scheduled_for IS NOT NULL))`,
  `ALTER TABLE executions DROP CONSTRAINT executions_trigger_check`,
  `ALTER TABLE executions ADD CONSTRAINT executions_trigger_check CHECK (trigger IN ('MANUAL', 'SCHEDULE', 'RETRY'))`,
  `ALTER TABLE executions DROP COLUMN upstream_status`,
  `ALTER TABLE executions DROP COLUMN triggered_by`,
  `ALTER TABLE executions DROP COLUMN parameters`,
  `ALTER TABLE jobs DROP CONSTRAINT jobs_window_check`,
  `ALTER TABLE jobs DROP COLUMN jitter_seconds`,
  `ALTER TABLE jobs DROP COLUMN ends_at`,
  `ALTER TABLE jobs DROP COLUMN starts_at`,
  `ALTER TABLE jobs DROP COLUMN parameters`,
  `ALTER TABLE jobs DROP COLUMN triggers`,
  `ALTER TABLE jobs ALTER COLUMN cron_expression SET NOT NULL`,
];

/**
 * Chains, parameters, runs at a given time, backfill, schedule windows and jitter.
 *
 * A job may have no schedule (cron_expression NULL), triggers (`[{ after, on }]`, by job name),
 * declared parameters, a window (starts_at, ends_at) and a jitter. An execution keeps the
 * parameter values it runs with, and a chained one the upstream execution and its outcome.
 * Two unique keys make the automatic fires exactly-once whatever the timing: one run per
 * (job, slot) for scheduled and backfilled runs alike (a backfill skips a slot the schedule
 * already ran), and one chained run per (job, upstream execution).
 */
export class ChainsAndParameters1765497600000 implements MigrationInterface {
  name = 'ChainsAndParameters1765497600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
