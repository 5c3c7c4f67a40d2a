import { MigrationInterface, QueryRunner } from 'typeorm';

/** Followers are woken on this channel, once per transaction that wrote events. */
const CHANNEL = 'orbit_events';

/** The transition guard; `seqs`: it also hands out the seq of the event each change is. */
function guard(seqs: boolean): string {
  const handOut = `
        IF NEW.status IS DISTINCT FROM OLD.status THEN
          IF NEW.status = 'RUNNING' THEN
            NEW.started_seq := nextval('orbit_event_seq');
          ELSE
            NEW.finished_seq := nextval('orbit_event_seq');
          END IF;
          PERFORM pg_notify('${CHANNEL}', '');
        END IF;`;
  return `
      CREATE OR REPLACE FUNCTION orbit_guard_execution_transition() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status IS DISTINCT FROM OLD.status AND NOT EXISTS (
          SELECT 1 FROM execution_transitions WHERE from_status = OLD.status AND to_status = NEW.status
        ) THEN
          RAISE EXCEPTION 'Illegal execution transition from % to %', OLD.status, NEW.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'executions_transition_check';
        END IF;${seqs ? handOut : ''}
        RETURN NEW;
      END $$`;
}

/** The queued events of new executions, and the retry mark; `derived`: a failure's mark is on its row. */
function createdEvents(table: string, derived: boolean): string {
  const mark = derived
    ? `UPDATE executions SET retry_queued = true
            WHERE id = failed.retry_of AND status = 'FAILED' AND finished_seq IS NOT NULL;
          IF NOT FOUND THEN -- a failure recorded before events were derived
            UPDATE ${table} SET retry_queued = true WHERE execution_id = failed.retry_of AND to_status = 'FAILED';
          END IF;`
    : `UPDATE ${table} SET retry_queued = true WHERE execution_id = failed.retry_of AND to_status = 'FAILED';`;
  return `
      CREATE OR REPLACE FUNCTION orbit_record_created_events() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        failed record;
      BEGIN
        INSERT INTO ${table} (type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
                            error_message, worker_id)
        SELECT 'execution.' || lower(n.status), n.created_at, n.job_id, n.id, NULL, n.status, n.attempt, n.trigger,
               n.exit_code, n.error_message, n.worker_id
          FROM created_rows n;
        IF NOT FOUND THEN
          RETURN NULL; -- every row was skipped (a slot taken already): nothing to tell
        END IF;
        -- one indexed update per retry (they are few)
        FOR failed IN SELECT n.retry_of FROM created_rows n WHERE n.retry_of IS NOT NULL LOOP
          ${mark}
        END LOOP;
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`;
}

function deletedEvents(table: string): string {
  return `
      CREATE OR REPLACE FUNCTION orbit_delete_execution_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM ${table} e USING deleted_rows d WHERE e.execution_id = d.id;
        RETURN NULL;
      END $$`;
}

function jobEvent(table: string): string {
  return `
      CREATE OR REPLACE FUNCTION orbit_record_job_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        deleted boolean := TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL;
      BEGIN
        INSERT INTO ${table} (type, at, job_id)
        VALUES (CASE WHEN TG_OP = 'INSERT' THEN 'job.created'
                     WHEN deleted THEN 'job.deleted'
                     WHEN NEW.enabled AND NOT OLD.enabled THEN 'job.resumed'
                     WHEN OLD.enabled AND NOT NEW.enabled THEN 'job.paused'
                     ELSE 'job.updated' END,
                CASE WHEN deleted THEN NEW.deleted_at ELSE NEW.updated_at END,
                NEW.id);
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`;
}

/** The two events a row holds once its run started and ended, as the Events migration's trigger wrote them. */
const STARTS = `
  SELECT started_seq AS seq, 'execution.running' AS type, started_at AS at, job_id, id AS execution_id,
         'QUEUED' AS from_status, 'RUNNING' AS to_status, attempt, trigger, NULL::integer AS exit_code,
         NULL::text AS error_message, worker_id, false AS retry_queued, NULL::text AS cause,
         NULL::timestamptz AS slot, NULL::jsonb AS detail
    FROM executions WHERE started_seq IS NOT NULL`;
const ENDS = `
  SELECT finished_seq AS seq, 'execution.' || lower(status) AS type, finished_at AS at, job_id, id AS execution_id,
         CASE WHEN started_at IS NULL THEN 'QUEUED' ELSE 'RUNNING' END AS from_status, status AS to_status, attempt,
         trigger, exit_code, error_message, worker_id, retry_queued, failure_cause AS cause, NULL::timestamptz AS slot,
         NULL::jsonb AS detail
    FROM executions WHERE finished_seq IS NOT NULL`;

const STORED_COLUMNS = `seq, type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
         error_message, worker_id, retry_queued, cause, slot, detail`;

/**
 * A run's start and end are no longer rows of their own: the guard, which sees every status
 * change from every writer, hands out the change's seq from the events' sequence into
 * `started_seq` or `finished_seq` of the row, in the changing statement; the event is read from
 * the row. So the event exists if and only if the change commits, once, in the stream's one
 * order, and costs the run no row and no trigger beyond the guard.
 *
 * `event_log` keeps what is written: queued events, job and slot events, notices, and every
 * event recorded before this migration. `execution_start_events` and `execution_end_events` are
 * the rows' two events, and `events`, the stream, is the three together. A reader by seq reads
 * each part through its own seq index with its own limit (a union of the three under one
 * ORDER BY sorts the rows' parts instead); readers of job and slot events read `event_log`.
 *
 * A failure's retry mark (`retry_queued`) moves onto the failed row, set by the insert of its
 * retry as before; failures recorded before this migration keep theirs on their event row.
 */
export class DerivedExecutionEvents1766275200000 implements MigrationInterface {
  name = 'DerivedExecutionEvents1766275200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE events RENAME TO event_log`);
    await db.query(`ALTER SEQUENCE events_seq_seq RENAME TO orbit_event_seq`);
    await db.query(`
      ALTER TABLE executions ADD COLUMN started_seq bigint, ADD COLUMN finished_seq bigint,
        ADD COLUMN retry_queued boolean NOT NULL DEFAULT false`);
    await db.query(`CREATE INDEX executions_started_seq_idx ON executions (started_seq) WHERE started_seq IS NOT NULL`);
    await db.query(
      `CREATE INDEX executions_finished_seq_idx ON executions (finished_seq) WHERE finished_seq IS NOT NULL`,
    );
    await db.query(`DROP TRIGGER executions_transition_event ON executions`);
    await db.query(`DROP FUNCTION orbit_record_execution_event`);
    await db.query(guard(true));
    await db.query(createdEvents('event_log', true));
    await db.query(deletedEvents('event_log'));
    await db.query(jobEvent('event_log'));
    await db.query(`CREATE VIEW execution_start_events AS ${STARTS}`);
    await db.query(`CREATE VIEW execution_end_events AS ${ENDS}`);
    await db.query(`
      CREATE VIEW events AS SELECT ${STORED_COLUMNS} FROM event_log
        UNION ALL SELECT * FROM execution_start_events UNION ALL SELECT * FROM execution_end_events`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP VIEW events, execution_start_events, execution_end_events`);
    await db.query(`ALTER TABLE event_log RENAME TO events`);
    await db.query(`ALTER SEQUENCE orbit_event_seq RENAME TO events_seq_seq`);
    await db.query(`INSERT INTO events (${STORED_COLUMNS}) OVERRIDING SYSTEM VALUE ${STARTS} UNION ALL ${ENDS}`);
    await db.query(guard(false));
    await db.query(createdEvents('events', false));
    await db.query(deletedEvents('events'));
    await db.query(jobEvent('events'));
    await db.query(`
      CREATE FUNCTION orbit_record_execution_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO events (type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
                            error_message, worker_id, cause)
        VALUES ('execution.' || lower(NEW.status),
                CASE NEW.status WHEN 'RUNNING' THEN NEW.started_at ELSE NEW.finished_at END,
                NEW.job_id, NEW.id, OLD.status, NEW.status, NEW.attempt, NEW.trigger, NEW.exit_code,
                NEW.error_message, NEW.worker_id, NEW.failure_cause);
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER executions_transition_event AFTER UPDATE OF status ON executions
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION orbit_record_execution_event()`);
    await db.query(`
      ALTER TABLE executions DROP COLUMN started_seq, DROP COLUMN finished_seq, DROP COLUMN retry_queued`);
  }
}
