import { MigrationInterface, QueryRunner } from 'typeorm';

/** What up() runs, in order: literal SQL, as it ran on every installation. */
const UP = [
  `ALTER TABLE workers ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'`,
  `ALTER TABLE workers ADD COLUMN draining boolean NOT NULL DEFAULT false`,
  `ALTER TABLE audit_events ALTER COLUMN target_id TYPE text`,
  `
      CREATE TABLE concurrency_groups (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        "limit" integer NOT NULL CHECK ("limit" >= 1),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL
      )`,
  `
      ALTER TABLE jobs
        ADD COLUMN worker_selector jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN run_on text NOT NULL DEFAULT 'one' CHECK (run_on IN ('one', 'all')),
        ADD COLUMN max_concurrent integer CHECK (max_concurrent >= 1),
        ADD COLUMN concurrency_group text,
        ADD COLUMN priority smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN -100 AND 100)`,
  `CREATE INDEX jobs_concurrency_group_idx ON jobs (concurrency_group) WHERE concurrency_group IS NOT NULL AND deleted_at IS NULL`,
  `
      ALTER TABLE executions
        ADD COLUMN worker_selector jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN max_concurrent integer,
        ADD COLUMN concurrency_group text,
        ADD COLUMN priority smallint NOT NULL DEFAULT 0,
        ADD COLUMN pinned_worker text,
        ADD COLUMN waiting_for text`,
  `CREATE INDEX executions_claim_idx ON executions (priority DESC, due_at, id)
      WHERE status = 'QUEUED' AND NOT (max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)`,
  `CREATE INDEX executions_claim_lane_idx ON executions ((CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END), priority DESC, due_at, id)
      WHERE status = 'QUEUED' AND (max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)`,
  `CREATE INDEX executions_running_lane_idx ON executions ((CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)) WHERE status = 'RUNNING' AND (max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)`,
  `
      CREATE FUNCTION orbit_lane_room(p_lane text, p_limit integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_lane, 0));
        RETURN p_limit - (SELECT count(*) FROM executions WHERE status = 'RUNNING' AND (max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL) AND (CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END) = p_lane);
      END $$`,
  `DROP INDEX executions_job_slot_key`,
  `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
      WHERE trigger = 'SCHEDULE'`,
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
      "id" uuid, "jobId" uuid, "command" text, "maxRetries" integer, "timeoutSeconds" integer, "status" text, "attempt" integer, "trigger" text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text, "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text
    )`,
  `
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger, to_char(e.scheduled_for AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.retry_of, to_char(e.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(e.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.exit_code, e.error_message, e.worker_id
      )::orbit_execution_response)::text;
    END $$`,
  `CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`,
  `ALTER TABLE executions ADD COLUMN response_json text`,
  `
    CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id
    ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`,
  `DROP INDEX executions_job_slot_key`,
  `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for) WHERE trigger = 'SCHEDULE'`,
  `DROP FUNCTION orbit_lane_room`,
  `DROP INDEX executions_running_lane_idx`,
  `DROP INDEX executions_claim_lane_idx`,
  `DROP INDEX executions_claim_idx`,
  `ALTER TABLE executions
      DROP COLUMN worker_selector, DROP COLUMN max_concurrent, DROP COLUMN concurrency_group,
      DROP COLUMN priority, DROP COLUMN pinned_worker, DROP COLUMN waiting_for`,
  `DROP INDEX jobs_concurrency_group_idx`,
  `ALTER TABLE jobs
      DROP COLUMN worker_selector, DROP COLUMN run_on, DROP COLUMN max_concurrent,
      DROP COLUMN concurrency_group, DROP COLUMN priority`,
  `DROP TABLE concurrency_groups`,
  `DELETE FROM audit_events WHERE action IN ('worker.drained', 'worker.resumed')`,
  `ALTER TABLE audit_events ALTER COLUMN target_id TYPE uuid USING target_id::uuid`,
  `ALTER TABLE workers DROP COLUMN labels, DROP COLUMN draining`,
];

/**
 * Placement and limits: workers' labels and drain, jobs' selector, runOn, limits and priority
 * (copied into their executions, as the command is), concurrency groups, and the claim's
 * indexes. Unlimited runs are claimed from an index of their own, limited ones from one keyed
 * by their lane, so runs held by a full limit never stand in the way of the others.
 */
export class Placement1765411200000 implements MigrationInterface {
  name = 'Placement1765411200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
