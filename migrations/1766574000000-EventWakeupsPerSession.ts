import { MigrationInterface, QueryRunner } from 'typeorm';

/** The guard's notice: always (as the RowChecksByTrigger migration left it), or once per window of a session. */
function guard(notice: string): string {
  return `
  CREATE OR REPLACE FUNCTION orbit_guard_execution_transition() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status AND (OLD.status, NEW.status) NOT IN (('QUEUED', 'CANCELLED'), ('QUEUED', 'RUNNING'), ('RUNNING', 'CANCELLED'), ('RUNNING', 'FAILED'), ('RUNNING', 'SUCCEEDED')) THEN
      RAISE EXCEPTION 'Illegal execution transition from % to %', OLD.status, NEW.status
        USING ERRCODE = 'check_violation', CONSTRAINT = 'executions_transition_check';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
      IF NEW.status = 'RUNNING' THEN
        NEW.started_seq := nextval('orbit_event_seq');
      ELSE
        NEW.finished_seq := nextval('orbit_event_seq');
      END IF;
${notice}
    END IF;
    RETURN NEW;
  END $$`;
}

const ALWAYS = `      PERFORM pg_notify('orbit_events', '');`;

/**
 * The session's last notice, in seconds since the epoch: a setting of the session, so that a
 * transaction that rolls back takes its stamp back with its notice.
 */
const PER_WINDOW = `      IF coalesce(nullif(current_setting('orbit.events_woken_at', true), '')::float8, 0)
           <= date_part('epoch', clock_timestamp()) - 0.1 THEN
        PERFORM pg_notify('orbit_events', '');
        PERFORM set_config('orbit.events_woken_at', date_part('epoch', clock_timestamp())::text, false);
      END IF;`;

/**
 * A run's change of status wakes the event stream's followers (NOTIFY orbit_events) at most once
 * per 100 ms per database session, instead of in every transaction that changes one.
 *
 * Why: PostgreSQL signals every backend of the database that LISTENs, on any channel, at each
 * commit that notified, and each reads the notice queue: about 10 µs of PostgreSQL CPU per run and
 * per listening connection at concurrency 8, so a cluster's cost per run grew with its number of
 * nodes. A commit that notified also holds the cluster's notify lock through its WAL flush, so
 * such commits follow one another. A worker's cycle notified at every commit.
 *
 * What a follower sees does not change: every event is still written, once, in the transaction
 * that changes the run; the first change after a quiet spell still wakes followers at its
 * commit. A change whose notice the window held back is read by the wake 150 ms after the last
 * notice (PgEventListener), or by the next notice, whichever comes first.
 */
export class EventWakeupsPerSession1766574000000 implements MigrationInterface {
  name = 'EventWakeupsPerSession1766574000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(guard(PER_WINDOW));
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(guard(ALWAYS));
  }
}
