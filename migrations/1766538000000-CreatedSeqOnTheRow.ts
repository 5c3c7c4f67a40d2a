import { MigrationInterface, QueryRunner } from 'typeorm';

/** Followers are woken on this channel, once per transaction that wrote events. */
const CHANNEL = 'orbit_events';
/** The events that tell of a run's creation or of a change of its status; any other of a run's events is a notice. */
const LIFECYCLE = `('execution.queued', 'execution.running', 'execution.succeeded', 'execution.failed', 'execution.cancelled')`;

/** The created event of each new run, under the seq its row holds; `seq`: that seq's column, or none (the log's default). */
function createdEvents(seq: string | null, legacy: string): string {
  return `
      CREATE OR REPLACE FUNCTION orbit_record_created_events() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        failed record;
      BEGIN
        INSERT INTO event_log (${seq ? 'seq, ' : ''}type, at, job_id, execution_id, from_status, to_status, attempt, trigger,
                               exit_code, error_message, worker_id)
        SELECT ${seq ? `n.${seq}, ` : ''}'execution.' || lower(n.status), n.created_at, n.job_id, n.id, NULL, n.status,
               n.attempt, n.trigger, n.exit_code, n.error_message, n.worker_id
          FROM created_rows n;
        IF NOT FOUND THEN
          RETURN NULL; -- every row was skipped (a slot taken already): nothing to tell
        END IF;
        -- one indexed update per retry (they are few)
        FOR failed IN SELECT n.retry_of FROM created_rows n WHERE n.retry_of IS NOT NULL LOOP
          UPDATE executions SET retry_queued = true
            WHERE id = failed.retry_of AND status = 'FAILED' AND finished_seq IS NOT NULL;
          IF NOT FOUND THEN -- a failure recorded before events were derived
            UPDATE event_log SET retry_queued = true
             WHERE execution_id = failed.retry_of AND to_status = 'FAILED'${legacy};
          END IF;
        END LOOP;
        PERFORM pg_notify('${CHANNEL}', '');
        RETURN NULL;
      END $$`;
}

/**
 * The log's index by run made again as `shape`; its part on the log from before the days keeps the
 * name the EventsAndOutputByDay migration gave it (which its `down` renames back).
 */
async function indexByRun(db: QueryRunner, shape: string): Promise<void> {
  await db.query(`DROP INDEX events_execution_idx`);
  await db.query(`CREATE INDEX events_execution_idx ON event_log ${shape}`);
  const [legacy] = (await db.query(
    `SELECT c.relname AS part FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.inhparent = 'events_execution_idx'::regclass AND x.indrelid = to_regclass('event_log_legacy')`,
  )) as { part: string }[];
  if (legacy) await db.query(`ALTER INDEX ${legacy.part} RENAME TO event_log_legacy_execution_idx`);
}

/**
 * A run's created event is written under a seq its row holds (`created_seq`, taken by the column's
 * default as the row is inserted), so the event log's index by run (`events_execution_idx`)
 * keeps only the events written before this migration: a new run enters one index fewer as it is
 * queued. What found a run's events by that index finds them so:
 *
 * - its created event by the log's primary key, `(created_seq, created_at)` (the event's instant
 *   is the run's creation, so one day of the log is probed);
 * - its notices by `events_notices_idx`;
 * - the events written before, by the index by run, which keeps those only (its predicate names
 *   the last seq handed out before this migration, read once every writer of executions is done).
 *
 * `orbit_delete_run_events` deletes a set of runs' events so; the trigger of deleted runs and
 * retention's drop of a day whose events are in the log's part from before the days use it. The
 * rows stored before keep no `created_seq` (nothing is rewritten); the index by run is built anew
 * over the events stored before (about a second per million events).
 */
export class CreatedSeqOnTheRow1766538000000 implements MigrationInterface {
  name = 'CreatedSeqOnTheRow1766538000000';

  async up(db: QueryRunner): Promise<void> {
    // waits for every transaction that writes executions; none begins until this one ends
    await db.query(`ALTER TABLE executions ADD COLUMN created_seq bigint`);
    const [{ last }] = (await db.query(
      `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS last FROM orbit_event_seq`,
    )) as [{ last: string }];
    const before = `seq <= ${BigInt(last).toString()}`;
    await db.query(`ALTER TABLE executions ALTER COLUMN created_seq SET DEFAULT nextval('orbit_event_seq')`);
    await indexByRun(db, `(execution_id) WHERE execution_id IS NOT NULL AND ${before}`);
    await db.query(createdEvents('created_seq', ` AND ${before}`));
    await db.query(`
      CREATE FUNCTION orbit_delete_run_events(ids uuid[], seqs bigint[], ats timestamptz[]) RETURNS void
        LANGUAGE sql AS $$
        DELETE FROM event_log e USING unnest(seqs, ats) AS r (seq, at) WHERE e.seq = r.seq AND e.at = r.at;
        DELETE FROM event_log e
         WHERE e.execution_id = ANY (ids) AND e.execution_id IS NOT NULL AND e.type NOT IN ${LIFECYCLE};
        DELETE FROM event_log e WHERE e.execution_id = ANY (ids) AND e.execution_id IS NOT NULL AND e.${before};
      $$`);
    await db.query(`
      CREATE OR REPLACE FUNCTION orbit_delete_execution_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM orbit_delete_run_events(array_agg(d.id), array_agg(d.created_seq), array_agg(d.created_at))
           FROM deleted_rows d;
        RETURN NULL;
      END $$`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE OR REPLACE FUNCTION orbit_delete_execution_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM event_log e USING deleted_rows d WHERE e.execution_id = d.id;
        RETURN NULL;
      END $$`);
    await db.query(`DROP FUNCTION orbit_delete_run_events`);
    await db.query(createdEvents(null, ''));
    await indexByRun(db, `(execution_id)`);
    await db.query(`ALTER TABLE executions DROP COLUMN created_seq`);
  }
}
