import { MigrationInterface, QueryRunner } from 'typeorm';

/** Followers are woken on this channel, once per transaction that wrote events (a constant payload is de-duplicated). */
const CHANNEL = 'orbit_events';

/**
 * One ordered stream of every state change: each change of an execution's status and each
 * change of a job, written by triggers in the transaction that made the change, so that no
 * writer (worker, lease reaper, API, a job's deletion, SQL by hand) can make one without it.
 *
 * `at` is the change's own instant as the row records it (created_at of a new execution,
 * started_at of a start, finished_at of an end; updated_at or deleted_at of a job): the domain's
 * clock wrote it, so an event says what the execution says. `seq` orders the stream; a reader
 * must not pass a gap in it while a transaction that may fill it is still open (see the
 * events module's SqlEventLog).
 *
 * A failure's retry is inserted with `retry_of` in the failure's transaction (whoever failed
 * it: worker, reaper, API); that insert marks the failure's event `retry_queued`, so readers
 * never see a failure that will be retried without the mark.
 *
 * The triggers are ordinary ones: under `session_replication_role = replica` (pg_restore,
 * logical replication, the bench's bulk load of history) rows arrive as copies of changes that
 * already happened, and their events, if any, are copied with them.
 */
export class Events1764892800000 implements MigrationInterface {
  name = 'Events1764892800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE events (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        type text NOT NULL,
        at timestamptz NOT NULL,
        job_id uuid NOT NULL,
        execution_id uuid,
        from_status text,
        to_status text,
        attempt integer,
        trigger text,
        exit_code integer,
        error_message text,
        worker_id text,
        retry_queued boolean NOT NULL DEFAULT false
      )`);
    // an execution's events are deleted with it; the retry mark finds the failure's event
    await db.query(`CREATE INDEX events_execution_idx ON events (execution_id)`);
    // retention ages out job events
    await db.query(`CREATE INDEX events_job_changes_idx ON events (at) WHERE execution_id IS NULL`);

    // A status change: one row trigger, whose WHEN skips updates that change no status (lease renewals)
    await db.query(`
      CREATE FUNCTION orbit_record_execution_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO events (type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
                            error_message, worker_id)
        VALUES ('execution.' || lower(NEW.status),
                CASE NEW.status WHEN 'RUNNING' THEN NEW.started_at ELSE NEW.finished_at END,
                NEW.job_id, NEW.id, OLD.status, NEW.status, NEW.attempt, NEW.trigger, NEW.exit_code,
                NEW.error_message, NEW.worker_id);
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_transition_event AFTER UPDATE OF status ON executions
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION orbit_record_execution_event()`);
    // New executions: one statement trigger over the inserted rows, in their order. Inserts come
    // in batches (the scheduler's passes, a herd of 10,000 due at once); a row trigger cost each
    // 10,000-row insert about 260-310 ms more, this one about 60 ms (median of 5, scratch PostgreSQL 18)
    await db.query(`
      CREATE FUNCTION orbit_record_created_events() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        failed record;
      BEGIN
        INSERT INTO events (type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
                            error_message, worker_id)
        SELECT 'execution.' || lower(n.status), n.created_at, n.job_id, n.id, NULL, n.status, n.attempt, n.trigger,
               n.exit_code, n.error_message, n.worker_id
          FROM created_rows n;
        IF NOT FOUND THEN
          RETURN NULL; -- every row was skipped (a slot taken already): nothing to tell
        END IF;
        -- one indexed update per retry (they are few): a join with the transition table, which has no
        -- statistics, may scan all of events for every insert statement
        FOR failed IN SELECT n.retry_of FROM created_rows n WHERE n.retry_of IS NOT NULL LOOP
          UPDATE events SET retry_queued = true WHERE execution_id = failed.retry_of AND to_status = 'FAILED';
        END LOOP;
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_created_events AFTER INSERT ON executions
      REFERENCING NEW TABLE AS created_rows FOR EACH STATEMENT EXECUTE FUNCTION orbit_record_created_events()`);

    // an execution's events go with it, in the statement that deletes it (retention's batches, or SQL by hand)
    await db.query(`
      CREATE FUNCTION orbit_delete_execution_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM events e USING deleted_rows d WHERE e.execution_id = d.id;
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_deleted_events AFTER DELETE ON executions
      REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION orbit_delete_execution_events()`);

    // a deletion also disables; pausing is `enabled` turned off (the schedule stops, runs already queued still run)
    await db.query(`
      CREATE FUNCTION orbit_record_job_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        deleted boolean := TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL;
      BEGIN
        INSERT INTO events (type, at, job_id)
        VALUES (CASE WHEN TG_OP = 'INSERT' THEN 'job.created'
                     WHEN deleted THEN 'job.deleted'
                     WHEN NEW.enabled AND NOT OLD.enabled THEN 'job.resumed'
                     WHEN OLD.enabled AND NOT NEW.enabled THEN 'job.paused'
                     ELSE 'job.updated' END,
                CASE WHEN deleted THEN NEW.deleted_at ELSE NEW.updated_at END,
                NEW.id);
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER jobs_created_event AFTER INSERT ON jobs
      FOR EACH ROW EXECUTE FUNCTION orbit_record_job_event()`);
    // the same rule as jobs_changed_notify: the scheduler's moves of next_run_at are no change of the job
    await db.query(`
      CREATE TRIGGER jobs_changed_event AFTER UPDATE ON jobs
      FOR EACH ROW WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
      EXECUTE FUNCTION orbit_record_job_event()`);

    await db.query(`
      CREATE TABLE event_cursors (
        consumer text PRIMARY KEY CHECK (char_length(consumer) BETWEEN 1 AND 200),
        after_seq bigint NOT NULL CHECK (after_seq >= 0),
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE event_cursors`);
    await db.query(`DROP TRIGGER jobs_changed_event ON jobs`);
    await db.query(`DROP TRIGGER jobs_created_event ON jobs`);
    await db.query(`DROP FUNCTION orbit_record_job_event`);
    await db.query(`DROP TRIGGER executions_deleted_events ON executions`);
    await db.query(`DROP FUNCTION orbit_delete_execution_events`);
    await db.query(`DROP TRIGGER executions_created_events ON executions`);
    await db.query(`DROP FUNCTION orbit_record_created_events`);
    await db.query(`DROP TRIGGER executions_transition_event ON executions`);
    await db.query(`DROP FUNCTION orbit_record_execution_event`);
    await db.query(`DROP TABLE events`);
  }
}
