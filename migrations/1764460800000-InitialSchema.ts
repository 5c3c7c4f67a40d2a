import { MigrationInterface, QueryRunner } from 'typeorm';

/** Jobs, executions (with the shapes each status allows), captured output, and change notifications. */
export class InitialSchema1764460800000 implements MigrationInterface {
  name = 'InitialSchema1764460800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE jobs (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        command text NOT NULL CHECK (octet_length(command) <= 8192),
        cron_expression text NOT NULL,
        timezone text NOT NULL,
        max_retries integer NOT NULL CHECK (max_retries BETWEEN 0 AND 100),
        timeout_seconds integer NOT NULL CHECK (timeout_seconds BETWEEN 1 AND 604800),
        enabled boolean NOT NULL,
        misfire_policy text NOT NULL CHECK (misfire_policy IN ('RUN_ONCE', 'SKIP')),
        concurrency_policy text NOT NULL CHECK (concurrency_policy IN ('ALLOW', 'FORBID', 'REPLACE')),
        next_run_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz,
        version integer NOT NULL DEFAULT 1
      )`);
    await db.query(`CREATE UNIQUE INDEX jobs_name_live_key ON jobs (name) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX jobs_newest_idx ON jobs (created_at DESC, id DESC) WHERE deleted_at IS NULL`);
    await db.query(`CREATE INDEX jobs_due_idx ON jobs (next_run_at) WHERE enabled AND deleted_at IS NULL`);

    await db.query(`
      CREATE TABLE executions (
        id uuid PRIMARY KEY,
        job_id uuid NOT NULL REFERENCES jobs (id),
        command text NOT NULL,
        max_retries integer NOT NULL CHECK (max_retries BETWEEN 0 AND 100),
        timeout_seconds integer NOT NULL CHECK (timeout_seconds >= 1),
        status text NOT NULL
          CONSTRAINT executions_status_check
          CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
        attempt integer NOT NULL CHECK (attempt >= 1),
        trigger text NOT NULL CHECK (trigger IN ('MANUAL', 'SCHEDULE', 'RETRY')),
        scheduled_for timestamptz,
        retry_of uuid REFERENCES executions (id),
        due_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz,
        exit_code integer,
        error_message text,
        worker_id text,
        lease_expires_at timestamptz,
        version integer NOT NULL DEFAULT 1,
        CONSTRAINT executions_shape_check CHECK (
          CASE status
            WHEN 'QUEUED' THEN started_at IS NULL AND finished_at IS NULL AND exit_code IS NULL
              AND error_message IS NULL AND worker_id IS NULL
            WHEN 'RUNNING' THEN started_at IS NOT NULL AND finished_at IS NULL AND exit_code IS NULL
              AND error_message IS NULL
            WHEN 'SUCCEEDED' THEN started_at IS NOT NULL AND finished_at IS NOT NULL AND exit_code IS NOT NULL
              AND error_message IS NULL
            WHEN 'FAILED' THEN started_at IS NOT NULL AND finished_at IS NOT NULL AND exit_code IS NOT NULL
              AND error_message IS NOT NULL
            WHEN 'CANCELLED' THEN finished_at IS NOT NULL AND exit_code IS NULL AND error_message IS NULL
          END),
        CONSTRAINT executions_schedule_slot_check CHECK ((trigger = 'SCHEDULE') = (scheduled_for IS NOT NULL)),
        CONSTRAINT executions_retry_of_check CHECK ((trigger = 'RETRY') = (retry_of IS NOT NULL)),
        CONSTRAINT executions_lease_check CHECK (lease_expires_at IS NULL OR status = 'RUNNING')
      )`);
    // at most one execution per (job, slot), however many schedulers run
    await db.query(
      `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for) WHERE trigger = 'SCHEDULE'`,
    );
    await db.query(`CREATE INDEX executions_newest_idx ON executions (created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX executions_job_newest_idx ON executions (job_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX executions_status_newest_idx ON executions (status, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX executions_due_idx ON executions (due_at, id) WHERE status = 'QUEUED'`);
    await db.query(`CREATE INDEX executions_running_idx ON executions (lease_expires_at) WHERE status = 'RUNNING'`);
    await db.query(`CREATE INDEX executions_retry_of_idx ON executions (retry_of) WHERE retry_of IS NOT NULL`);

    await db.query(`
      CREATE TABLE execution_outputs (
        execution_id uuid PRIMARY KEY REFERENCES executions (id) ON DELETE CASCADE,
        stdout text NOT NULL DEFAULT '',
        stderr text NOT NULL DEFAULT '',
        truncated boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL
      )`);

    // Wake-ups for every node, whoever wrote the row (the API, a scheduler, SQL by hand).
    await db.query(`
      CREATE FUNCTION orbit_notify_queued() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('orbit_executions_queued', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_queued_notify AFTER INSERT ON executions
      FOR EACH STATEMENT EXECUTE FUNCTION orbit_notify_queued()`);
    await db.query(`
      CREATE FUNCTION orbit_notify_cancelled() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('orbit_execution_cancelled', NEW.id::text);
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_cancelled_notify AFTER UPDATE OF status ON executions
      FOR EACH ROW WHEN (OLD.status = 'RUNNING' AND NEW.status = 'CANCELLED')
      EXECUTE FUNCTION orbit_notify_cancelled()`);
    await db.query(`
      CREATE FUNCTION orbit_notify_jobs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('orbit_jobs_changed', '');
        RETURN NULL;
      END $$`);
    // the scheduler's own moves of next_run_at leave updated_at alone and wake nobody
    await db.query(`
      CREATE TRIGGER jobs_inserted_notify AFTER INSERT ON jobs
      FOR EACH STATEMENT EXECUTE FUNCTION orbit_notify_jobs_changed()`);
    await db.query(`
      CREATE TRIGGER jobs_changed_notify AFTER UPDATE ON jobs
      FOR EACH ROW WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
      EXECUTE FUNCTION orbit_notify_jobs_changed()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE execution_outputs`);
    await db.query(`DROP TABLE executions`);
    await db.query(`DROP TABLE jobs`);
    await db.query(`DROP FUNCTION orbit_notify_queued, orbit_notify_cancelled, orbit_notify_jobs_changed`);
  }
}
