import { MigrationInterface, QueryRunner } from 'typeorm';

/** What up() runs, in order: literal SQL, as it ran on every installation. */
const UP = [
  `ALTER TABLE executions ADD COLUMN cancelled_by jsonb`,
  `DROP TRIGGER executions_write_response_json_update ON executions_history`,
  `ALTER TABLE executions DROP COLUMN response_json`,
  `DROP FUNCTION orbit_execution_json(executions)`,
  `DROP TYPE orbit_execution_response`,
  `
    CREATE TYPE orbit_execution_response AS (
      "id" uuid, "jobId" uuid, "command" text, "maxRetries" integer, "timeoutSeconds" integer, "status" text, "attempt" integer, "trigger" text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text, "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text, "workerSelector" jsonb, "pinnedWorker" text, "maxConcurrent" integer, "concurrencyGroup" text, "priority" smallint, "waitingFor" text, "parameters" jsonb, "triggeredBy" uuid, "maxDurationSeconds" integer, "cancelledBy" jsonb
    )`,
  `
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger, to_char(e.scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.retry_of, to_char(e.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.exit_code, e.error_message, e.worker_id, e.worker_selector, e.pinned_worker, e.max_concurrent, e.concurrency_group, e.priority, e.waiting_for, e.parameters, e.triggered_by, e.max_duration_seconds, e.cancelled_by
      )::orbit_execution_response)::text;
    END $$`,
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds, cancelled_by
    ON executions_history FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`,
];

/** What down() runs, in order. */
const DOWN = [
  `DROP TRIGGER executions_write_response_json_update ON executions_history`,
  `ALTER TABLE executions DROP COLUMN response_json`,
  `DROP FUNCTION orbit_execution_json(executions)`,
  `DROP TYPE orbit_execution_response`,
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
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds
    ON executions_history FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`,
  `ALTER TABLE executions DROP COLUMN cancelled_by`,
];

/**
 * A cancelled run keeps who cancelled it (`cancelled_by`: a caller, the deletion of its job, the
 * scheduler, and the token's name), shown in its JSON as `cancelledBy`, instead of being inferred
 * from the audit trail. The column is written only by a cancel's own statement, in the row version
 * that moves the run to the history: no other save, a run's finish first, sends or writes it, and
 * orbit_save_executions stays as it was. A run cancelled before has none.
 *
 * The JSON changes as the response-JSON test's replaceFinalRunsResponseJson would change it, less
 * what does not change: the writer function and the INSERT trigger stay; the type, the JSON
 * function and the history's UPDATE trigger (its columns) are made again, and the stored JSON is
 * emptied (dropped and added: instant), so a row stored before is made as it is read.
 */
export class CancelledBy1766448000000 implements MigrationInterface {
  name = 'CancelledBy1766448000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
