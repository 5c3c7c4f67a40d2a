import { MigrationInterface, QueryRunner } from 'typeorm';

/** The Events migration's status-change trigger function, with the failure's cause or (down) without. */
function recordExecutionEvent(withCause: boolean): string {
  const cause = withCause ? ', cause' : '';
  const value = withCause ? ', NEW.failure_cause' : '';
  return `
    CREATE OR REPLACE FUNCTION orbit_record_execution_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO events (type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code,
                          error_message, worker_id${cause})
      VALUES ('execution.' || lower(NEW.status),
              CASE NEW.status WHEN 'RUNNING' THEN NEW.started_at ELSE NEW.finished_at END,
              NEW.job_id, NEW.id, OLD.status, NEW.status, NEW.attempt, NEW.trigger, NEW.exit_code,
              NEW.error_message, NEW.worker_id${value});
      PERFORM pg_notify('orbit_events', '');
      RETURN NULL;
    END $$`;
}

/**
 * Alerts: the channels they go to, a job's own alert rules, and the deliveries with every
 * attempt. A delivery is written by the alerts consumer in the transaction that moves its
 * cursor over the event (see EventConsumers); `(event_seq, channel_id)` is unique, so one
 * event gives a channel one delivery at most, whatever happens to the consumer. A test
 * delivery has no event.
 */
export class Alerts1764979200000 implements MigrationInterface {
  name = 'Alerts1764979200000';

  async up(db: QueryRunner): Promise<void> {
    // [{ "channel": "<name>", "on": ["failed", ...] }]: the jobs module validates it, the alerts module reads it.
    // No index: only a channel's removal or rename looks for the jobs that name it, and every
    // scheduler move of next_run_at would pay for one
    await db.query(`ALTER TABLE jobs ADD COLUMN alerts jsonb NOT NULL DEFAULT '[]'`);

    // the cause a failure's writer knew (see FailureCause), carried into its event: alerts tell a
    // lost worker by it, never by the message's text
    await db.query(
      `ALTER TABLE executions ADD COLUMN failure_cause text CHECK (failure_cause IN ('timeout', 'worker_lost'))`,
    );
    await db.query(`ALTER TABLE events ADD COLUMN cause text`);
    await db.query(recordExecutionEvent(true));

    await db.query(`
      CREATE TABLE channels (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        type text NOT NULL CHECK (type IN ('webhook', 'slack', 'email')),
        settings jsonb NOT NULL,
        all_jobs_on text[],
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL
      )`);

    await db.query(`
      CREATE TABLE deliveries (
        id uuid PRIMARY KEY,
        channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        event_seq bigint,
        event text NOT NULL,
        job_id uuid,
        execution_id uuid,
        payload jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        give_up_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        UNIQUE (event_seq, channel_id)
      )`);
    await db.query(`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'PENDING'`);
    await db.query(`CREATE INDEX deliveries_channel_idx ON deliveries (channel_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX deliveries_job_idx ON deliveries (job_id, created_at DESC, id DESC)`);
    await db.query(`CREATE INDEX deliveries_list_idx ON deliveries (created_at DESC, id DESC)`);

    await db.query(`
      CREATE TABLE delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        http_status integer,
        smtp_response text,
        error text,
        latency_ms integer NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`);

    // whether a job's last final outcome was a failure, for `recovered`; kept for jobs that alert only
    await db.query(`
      CREATE TABLE alert_job_states (
        job_id uuid PRIMARY KEY,
        failing boolean NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE alert_job_states`);
    await db.query(`DROP TABLE delivery_attempts`);
    await db.query(`DROP TABLE deliveries`);
    await db.query(`DROP TABLE channels`);
    await db.query(recordExecutionEvent(false));
    await db.query(`ALTER TABLE events DROP COLUMN cause`);
    await db.query(`ALTER TABLE executions DROP COLUMN failure_cause`);
    await db.query(`ALTER TABLE jobs DROP COLUMN alerts`);
  }
}
