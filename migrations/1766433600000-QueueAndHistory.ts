import { MigrationInterface, QueryRunner } from 'typeorm';

const ACTIVE = `('QUEUED', 'RUNNING')`;
const FINAL = `('SUCCEEDED', 'FAILED', 'CANCELLED')`;
const LANE = `(CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)`;
const LIMITED = `(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)`;
/** The columns whose change changes a finished run's stored JSON. */
const SHOWN = `id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds`;

/** What claims, leases and the watchers read: runs that wait or run. */
const QUEUE_INDEXES = [
  `CREATE INDEX executions_claim_idx ON executions_active (priority DESC, due_at, id) WHERE status = 'QUEUED' AND NOT ${LIMITED}`,
  `CREATE INDEX executions_claim_lane_idx ON executions_active (${LANE}, priority DESC, due_at, id) WHERE status = 'QUEUED' AND ${LIMITED}`,
  `CREATE INDEX executions_due_idx ON executions_active (due_at, id) WHERE status = 'QUEUED'`,
  `CREATE INDEX executions_running_idx ON executions_active (lease_expires_at) WHERE status = 'RUNNING'`,
  `CREATE INDEX executions_running_lane_idx ON executions_active (${LANE}) WHERE status = 'RUNNING' AND ${LIMITED}`,
  `CREATE INDEX executions_long_running_idx ON executions_active (started_at) WHERE status = 'RUNNING' AND max_duration_seconds IS NOT NULL AND NOT long_running_noticed`,
];

const HISTORY_TRIGGERS = [
  // a run arrives here once: moved at its end, or written finished (a seeded history)
  `CREATE TRIGGER executions_job_outcome AFTER INSERT ON executions_history FOR EACH ROW
     WHEN (NEW.status IN ('SUCCEEDED', 'FAILED') AND NEW.finished_at IS NOT NULL) EXECUTE FUNCTION orbit_record_job_outcome()`,
  `CREATE TRIGGER executions_cancelled_notify AFTER INSERT ON executions_history FOR EACH ROW
     WHEN (NEW.status = 'CANCELLED' AND NEW.started_at IS NOT NULL) EXECUTE FUNCTION orbit_notify_cancelled()`,
  `CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF ${SHOWN} ON executions_history
     FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`,
];

const PARENT_TRIGGERS = [
  `CREATE TRIGGER executions_transition_guard BEFORE UPDATE ON executions FOR EACH ROW EXECUTE FUNCTION orbit_guard_execution_transition()`,
  // a run moved to the history is inserted there: it holds its key already (a newer version)
  `CREATE TRIGGER executions_take_run_key BEFORE INSERT ON executions FOR EACH ROW
     WHEN (NEW.trigger IN ('SCHEDULE', 'BACKFILL', 'CHAIN') AND NEW.version = 1) EXECUTE FUNCTION orbit_take_run_key()`,
  `CREATE TRIGGER executions_retry_of_exists AFTER INSERT ON executions FOR EACH ROW
     WHEN (NEW.retry_of IS NOT NULL AND NEW.version = 1) EXECUTE FUNCTION orbit_check_retry_of()`,
  // on INSERT only: a move fires its destination's INSERT triggers, so the JSON is made once, in the history
  `CREATE TRIGGER executions_write_response_json BEFORE INSERT ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`,
  `CREATE TRIGGER executions_created_events AFTER INSERT ON executions REFERENCING NEW TABLE AS created_rows
     FOR EACH STATEMENT EXECUTE FUNCTION orbit_record_created_events()`,
  `CREATE TRIGGER executions_queued_notify AFTER INSERT ON executions FOR EACH STATEMENT EXECUTE FUNCTION orbit_notify_queued()`,
  `CREATE TRIGGER executions_deleted_events AFTER DELETE ON executions REFERENCING OLD TABLE AS deleted_rows
     FOR EACH STATEMENT EXECUTE FUNCTION orbit_delete_execution_events()`,
  `CREATE TRIGGER executions_release_deleted AFTER DELETE ON executions REFERENCING OLD TABLE AS deleted_rows
     FOR EACH STATEMENT EXECUTE FUNCTION orbit_release_deleted_executions()`,
  `CREATE TRIGGER executions_clear_rows AFTER TRUNCATE ON executions FOR EACH STATEMENT EXECUTE FUNCTION orbit_clear_execution_rows()`,
];

const TRIGGER_NAMES = [
  'executions_transition_guard',
  'executions_take_run_key',
  'executions_retry_of_exists',
  'executions_write_response_json',
  'executions_created_events',
  'executions_queued_notify',
  'executions_deleted_events',
  'executions_release_deleted',
  'executions_clear_rows',
  'executions_job_outcome',
  'executions_cancelled_notify',
];

const EVENT_VIEWS = [
  `CREATE VIEW execution_start_events AS
   SELECT started_seq AS seq, 'execution.running'::text AS type, started_at AS at, job_id, id AS execution_id,
          'QUEUED'::text AS from_status, 'RUNNING'::text AS to_status, attempt, trigger, NULL::integer AS exit_code,
          NULL::text AS error_message, worker_id, false AS retry_queued, NULL::text AS cause,
          NULL::timestamptz AS slot, NULL::jsonb AS detail
     FROM executions WHERE started_seq IS NOT NULL`,
  `CREATE VIEW execution_end_events AS
   SELECT finished_seq AS seq, 'execution.' || lower(status) AS type, finished_at AS at, job_id, id AS execution_id,
          CASE WHEN started_at IS NULL THEN 'QUEUED' ELSE 'RUNNING' END AS from_status, status AS to_status, attempt,
          trigger, exit_code, error_message, worker_id, retry_queued, failure_cause AS cause,
          NULL::timestamptz AS slot, NULL::jsonb AS detail
     FROM executions WHERE finished_seq IS NOT NULL`,
  `CREATE VIEW events AS
   SELECT seq, type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code, error_message,
          worker_id, retry_queued, cause, slot, detail FROM event_log
   UNION ALL SELECT * FROM execution_start_events
   UNION ALL SELECT * FROM execution_end_events`,
];

/** The functions that name the table's row type: dropped with the old table's name, made again for the new one. */
const ROW_TYPE_FUNCTIONS = (json: string) => [
  `CREATE FUNCTION orbit_claim_free(due timestamptz, wanted integer, labels jsonb, worker text) RETURNS SETOF executions
     LANGUAGE sql SET enable_sort = off SET plan_cache_mode = force_generic_plan AS $$
    SELECT * FROM executions
     WHERE status = 'QUEUED' AND NOT ${LIMITED} AND due_at <= due
       AND worker_selector <@ labels AND (pinned_worker IS NULL OR pinned_worker = worker)
       AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = worker AND w.draining)
     ORDER BY priority DESC, due_at, id LIMIT wanted FOR UPDATE SKIP LOCKED
  $$`,
  `CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$ ${json} $$`,
];

/** The check of `retry_of`; `table`, what its refusal names (a partition's trigger's TG_TABLE_NAME is the partition). */
function retryOfCheck(table: string): string {
  return `
  CREATE OR REPLACE FUNCTION orbit_check_retry_of() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM executions WHERE id = NEW.retry_of FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'execution % does not exist', NEW.retry_of
        USING ERRCODE = 'foreign_key_violation', TABLE = ${table}, CONSTRAINT = 'executions_retry_of_fkey';
    END IF;
    RETURN NULL;
  END $$`;
}

/**
 * The run-key trigger of the ExecutionKeysByTriggers migration; `moves` lets a run that holds its
 * key already through (a move to the history inserts the row again there).
 */
function takeRunKey(moves: boolean): string {
  const held = (ledger: string, key: string) =>
    moves ? `OR EXISTS (SELECT 1 FROM ${ledger} WHERE ${key} AND execution_id = NEW.id)` : '';
  return `
  CREATE OR REPLACE FUNCTION orbit_take_run_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.trigger = 'CHAIN' THEN
      INSERT INTO execution_chains (job_id, triggered_by, execution_id)
      VALUES (NEW.job_id, NEW.triggered_by, NEW.id) ON CONFLICT DO NOTHING;
      IF FOUND ${held('execution_chains', 'job_id = NEW.job_id AND triggered_by = NEW.triggered_by')} THEN
        RETURN NEW;
      END IF;
    ELSE
      INSERT INTO execution_slots (job_id, slot, pinned, execution_id)
      VALUES (NEW.job_id, NEW.scheduled_for, coalesce(NEW.pinned_worker, ''), NEW.id) ON CONFLICT DO NOTHING;
      IF FOUND ${held('execution_slots', "job_id = NEW.job_id AND slot = NEW.scheduled_for AND pinned = coalesce(NEW.pinned_worker, '')")} THEN
        RETURN NEW;
      END IF;
    END IF;
    RETURN NULL; -- another run holds the key: this one is not stored
  END $$`;
}

/** The save as the SaveByFunction migration wrote it; `active` adds what it needs on the new shape. */
function saveFunction(active: boolean): string {
  return `
  CREATE OR REPLACE FUNCTION orbit_save_executions(id uuid[], version integer[], status text[], started_at timestamptz[], finished_at timestamptz[], exit_code integer[], error_message text[], worker_id text[], failure_cause text[], waiting_for text[], lease timestamptz)
    RETURNS SETOF uuid LANGUAGE sql VOLATILE
    SET plan_cache_mode = force_generic_plan SET enable_hashjoin = off SET enable_mergejoin = off${
      active ? ' SET enable_seqscan = off' : ''
    } AS $$
    UPDATE executions e
       SET status = v.status, started_at = v.started_at, finished_at = v.finished_at, exit_code = v.exit_code, error_message = v.error_message, worker_id = v.worker_id, failure_cause = v.failure_cause, waiting_for = v.waiting_for, version = e.version + 1,
           lease_expires_at = CASE WHEN v.status = 'RUNNING' THEN coalesce($11, e.lease_expires_at) END
      FROM unnest($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS v (id, version, status, started_at, finished_at, exit_code, error_message, worker_id, failure_cause, waiting_for)
     WHERE e.id = v.id AND e.version = v.version${active ? ` AND e.status IN ${ACTIVE}` : ''}
    RETURNING e.id
  $$`;
}

/**
 * `executions` becomes two partitions by status: `executions_active` holds the runs that wait or
 * run, `executions_history` the finished ones (the old table itself, attached: no row of the history
 * is copied). Claims, leases and the watchers read and write only the small active partition and
 * its indexes; a run that ends moves to the history with one insert, entering the history's list
 * and event indexes once instead of at each of its changes.
 *
 * PostgreSQL moves a row between partitions as a delete and an insert: the destination's INSERT
 * triggers fire, its UPDATE triggers do not. So what followed a run's end (its outcome, the
 * cancel notice, its stored JSON) runs as the history receives it, and the key a run took as it
 * was queued is not taken again.
 */
/**
 * Drops what names the table's row type or reads it by name (the event views, the claim, the JSON
 * function), to be made again over the new table; answers the JSON function's body.
 */
async function dropRowTypeUsers(db: QueryRunner): Promise<string> {
  const [{ json }] = (await db.query(
    `SELECT regexp_replace(prosrc, '^\\s+|\\s+$', '', 'g') AS json FROM pg_proc WHERE proname = 'orbit_execution_json'`,
  )) as [{ json: string }];
  for (const view of ['events', 'execution_start_events', 'execution_end_events']) await db.query(`DROP VIEW ${view}`);
  await db.query(`DROP FUNCTION orbit_claim_free(timestamptz, integer, jsonb, text)`);
  await db.query(`DROP FUNCTION orbit_execution_json(executions)`);
  return json;
}

export class QueueAndHistory1766433600000 implements MigrationInterface {
  name = 'QueueAndHistory1766433600000';

  async up(db: QueryRunner): Promise<void> {
    const json = await dropRowTypeUsers(db);
    for (const trigger of TRIGGER_NAMES) await db.query(`DROP TRIGGER ${trigger} ON executions`);
    for (const index of ['claim', 'claim_lane', 'due', 'running', 'running_lane', 'long_running']) {
      await db.query(`DROP INDEX executions_${index}_idx`);
    }
    await db.query(`ALTER TABLE executions RENAME TO executions_history`);
    // a new run's id is refused as a duplicate in the active partition, under the name it always had
    await db.query(`ALTER TABLE executions_history RENAME CONSTRAINT executions_pkey TO executions_history_pkey`);
    await db.query(
      `ALTER TABLE executions_history RESET (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor)`,
    );

    await db.query(
      `CREATE TABLE executions (LIKE executions_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY LIST (status)`,
    );
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id)`,
    );
    // a small table whose every row changes within seconds: vacuumed often, as the whole table was
    await db.query(`
      CREATE TABLE executions_active PARTITION OF executions FOR VALUES IN ${ACTIVE}
        WITH (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0.01, vacuum_index_cleanup = on)`);
    await db.query(`ALTER TABLE executions_active ADD CONSTRAINT executions_pkey PRIMARY KEY (id)`);
    for (const index of QUEUE_INDEXES) await db.query(index);
    await db.query(
      `CREATE INDEX executions_active_job_newest_idx ON executions_active (job_id, created_at DESC, id DESC)`,
    );
    await db.query(
      `CREATE INDEX executions_active_started_seq_idx ON executions_active (started_seq) WHERE started_seq IS NOT NULL`,
    );
    // always empty: it lets the event stream read the end events by index from both partitions
    await db.query(
      `CREATE INDEX executions_active_finished_seq_idx ON executions_active (finished_seq) WHERE finished_seq IS NOT NULL`,
    );

    await db.query(`INSERT INTO executions_active SELECT * FROM executions_history WHERE status IN ${ACTIVE}`);
    await db.query(`DELETE FROM executions_history WHERE status IN ${ACTIVE}`);
    // the check lets ATTACH skip its own scan of the history
    await db.query(
      `ALTER TABLE executions_history ADD CONSTRAINT executions_history_final CHECK (status IN ${FINAL}) NOT VALID`,
    );
    await db.query(`ALTER TABLE executions_history VALIDATE CONSTRAINT executions_history_final`);
    await db.query(`ALTER TABLE executions ATTACH PARTITION executions_history FOR VALUES IN ${FINAL}`);
    await db.query(`ALTER TABLE executions_history DROP CONSTRAINT executions_history_final`);

    for (const sql of ROW_TYPE_FUNCTIONS(json)) await db.query(sql);
    await db.query(retryOfCheck(`'executions'`));
    await db.query(takeRunKey(true));
    for (const sql of [...PARENT_TRIGGERS, ...HISTORY_TRIGGERS]) await db.query(sql);
    for (const view of EVENT_VIEWS) await db.query(view);
    // only waiting and running runs change; the active partition's statistics are always stale
    // (it swings from empty to a herd's backlog), so no plan of the hot path may rest on them
    await db.query(saveFunction(true));
  }

  async down(db: QueryRunner): Promise<void> {
    const json = await dropRowTypeUsers(db);
    await db.query(`ALTER TABLE executions DETACH PARTITION executions_history`);
    for (const trigger of [
      'executions_job_outcome',
      'executions_cancelled_notify',
      'executions_write_response_json_update',
    ]) {
      await db.query(`DROP TRIGGER ${trigger} ON executions_history`);
    }
    await db.query(`INSERT INTO executions_history SELECT * FROM executions_active`);
    await db.query(`DROP TABLE executions`);
    await db.query(`ALTER TABLE executions_history RENAME TO executions`);
    await db.query(`ALTER TABLE executions RENAME CONSTRAINT executions_history_pkey TO executions_pkey`);
    await db.query(
      `ALTER TABLE executions SET (autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_scale_factor = 0.01)`,
    );
    for (const index of QUEUE_INDEXES) await db.query(index.replace(' ON executions_active ', ' ON executions '));
    for (const sql of ROW_TYPE_FUNCTIONS(json)) await db.query(sql);
    await db.query(retryOfCheck('TG_TABLE_NAME'));
    await db.query(takeRunKey(false));
    for (const sql of PARENT_TRIGGERS) {
      await db.query(
        sql
          .replace(`AND NEW.version = 1`, '')
          .replace(
            `BEFORE INSERT ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
            `BEFORE INSERT OR UPDATE OF ${SHOWN} ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
          ),
      );
    }
    await db.query(`CREATE TRIGGER executions_job_outcome AFTER UPDATE OF status ON executions FOR EACH ROW
      WHEN (NEW.status IN ('SUCCEEDED', 'FAILED') AND OLD.status IS DISTINCT FROM NEW.status AND NEW.finished_at IS NOT NULL)
      EXECUTE FUNCTION orbit_record_job_outcome()`);
    await db.query(`CREATE TRIGGER executions_cancelled_notify AFTER UPDATE OF status ON executions FOR EACH ROW
      WHEN (OLD.status = 'RUNNING' AND NEW.status = 'CANCELLED') EXECUTE FUNCTION orbit_notify_cancelled()`);
    for (const view of EVENT_VIEWS) await db.query(view);
    await db.query(saveFunction(false));
  }
}
