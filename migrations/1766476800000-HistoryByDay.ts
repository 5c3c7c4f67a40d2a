import { MigrationInterface, QueryRunner } from 'typeorm';

const FINAL = `('SUCCEEDED', 'FAILED', 'CANCELLED')`;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Days made ahead by the migration; the runtime keeps as many ahead from then on. */
const DAYS_AHEAD = 7;
/** The columns whose change changes a finished run's stored JSON (as the CancelledBy migration left them). */
const SHOWN = `id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds, cancelled_by`;

/** The history's indexes, by name, as the earlier migrations made them on the single history table. */
const HISTORY_INDEXES: [string, string][] = [
  ['executions_newest_idx', `(created_at DESC, id DESC)`],
  ['executions_job_newest_idx', `(job_id, created_at DESC, id DESC)`],
  ['executions_status_newest_idx', `(status, created_at DESC, id DESC)`],
  ['executions_retry_of_idx', `(retry_of) WHERE retry_of IS NOT NULL`],
  ['executions_finished_idx', `(job_id, finished_at DESC) WHERE finished_at IS NOT NULL`],
  ['executions_started_seq_idx', `(started_seq) WHERE started_seq IS NOT NULL`],
  ['executions_finished_seq_idx', `(finished_seq) WHERE finished_seq IS NOT NULL`],
  [
    'executions_history_worker_finished_idx',
    `(worker_id, finished_at) WHERE worker_id IS NOT NULL AND finished_at IS NOT NULL`,
  ],
];
/** The worker index's history part, as PostgreSQL named it when the WorkerRunsIndex migration made it on the parent. */
const WORKER_INDEX_GIVEN_NAME = 'executions_history_worker_id_finished_at_idx';

const HISTORY_TRIGGERS = [
  `CREATE TRIGGER executions_job_outcome AFTER INSERT ON executions_history FOR EACH ROW
     WHEN (NEW.status IN ('SUCCEEDED', 'FAILED') AND NEW.finished_at IS NOT NULL)
     EXECUTE FUNCTION orbit_record_job_outcome()`,
  `CREATE TRIGGER executions_cancelled_notify AFTER INSERT ON executions_history FOR EACH ROW
     WHEN (NEW.status = 'CANCELLED' AND NEW.started_at IS NOT NULL)
     EXECUTE FUNCTION orbit_notify_cancelled()`,
  `CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF ${SHOWN} ON executions_history
     FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
  `ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`,
];
const HISTORY_TRIGGER_NAMES = [
  'executions_job_outcome',
  'executions_cancelled_notify',
  'executions_write_response_json_update',
];

/** `executions_h_20270105` for the UTC day that starts at `day`. */
function dayLeaf(day: Date): string {
  return `executions_h_${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * The history (`executions_history`, the finished runs) becomes partitioned by UTC day of its runs'
 * creation, so that retention drops a day whole instead of deleting its rows one by one, and a read
 * by id, whose UUIDv7 holds its creation instant, reads one day.
 *
 * The single history table becomes the leaf `executions_h_legacy`, holding every run created before
 * the day after the migration (or after the newest run); it is attached, not copied: a check
 * validated first spares ATTACH its scan, and its indexes become the new parent's. Only the
 * non-unique index by id is built (a unique index of a partitioned table must hold the partition
 * key), and the unique one dropped. Days are made 7 days ahead, and a DEFAULT leaf takes any run
 * whose day is missing, so that no run is ever refused for it (the runtime makes days ahead and
 * moves such runs into their day once it exists).
 */
export class HistoryByDay1766476800000 implements MigrationInterface {
  name = 'HistoryByDay1766476800000';

  async up(db: QueryRunner): Promise<void> {
    const [{ bound }] = (await db.query(`
      SELECT date_trunc('day', greatest(now(), max(created_at)), 'UTC') + interval '24 hours' AS bound
        FROM executions_history`)) as [{ bound: Date }];
    await db.query(`ALTER TABLE executions DETACH PARTITION executions_history`);
    for (const trigger of HISTORY_TRIGGER_NAMES) await db.query(`DROP TRIGGER ${trigger} ON executions_history`);
    await db.query(`ALTER TABLE executions_history RENAME TO executions_h_legacy`);
    await db.query(`ALTER INDEX ${WORKER_INDEX_GIVEN_NAME} RENAME TO executions_history_worker_finished_idx`);
    for (const [name] of HISTORY_INDEXES) {
      await db.query(`ALTER INDEX ${name} RENAME TO ${name.replace(/^executions_/, 'executions_h_legacy_')}`);
    }

    await db.query(
      `CREATE TABLE executions_history (LIKE executions INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)`,
    );
    await db.query(`CREATE INDEX executions_history_id_idx ON executions_history (id)`);
    for (const [name, shape] of HISTORY_INDEXES) await db.query(`CREATE INDEX ${name} ON executions_history ${shape}`);

    await db.query(`ALTER TABLE executions_h_legacy
      ADD CONSTRAINT executions_h_legacy_bound CHECK (status IN ${FINAL} AND created_at < '${bound.toISOString()}') NOT VALID`);
    await db.query(`ALTER TABLE executions_h_legacy VALIDATE CONSTRAINT executions_h_legacy_bound`);
    await db.query(
      `ALTER TABLE executions_history ATTACH PARTITION executions_h_legacy FOR VALUES FROM (MINVALUE) TO ('${bound.toISOString()}')`,
    );
    await db.query(`ALTER TABLE executions_h_legacy DROP CONSTRAINT executions_history_pkey`);
    for (let day = 0; day < DAYS_AHEAD; day++) {
      const from = new Date(bound.getTime() + day * DAY_MS);
      const to = new Date(from.getTime() + DAY_MS);
      await db.query(`CREATE TABLE ${dayLeaf(from)} PARTITION OF executions_history
        FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`);
    }
    await db.query(`CREATE TABLE executions_h_default PARTITION OF executions_history DEFAULT`);

    // every leaf either is empty or holds the check: the attach reads none of them
    await db.query(`ALTER TABLE executions ATTACH PARTITION executions_history FOR VALUES IN ${FINAL}`);
    await db.query(`ALTER TABLE executions_h_legacy DROP CONSTRAINT executions_h_legacy_bound`);
    for (const sql of HISTORY_TRIGGERS) await db.query(sql);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE executions DETACH PARTITION executions_history`);
    const leaves = (await db.query(`
      SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'executions_history'::regclass`)) as { name: string }[];
    for (const { name } of leaves) await db.query(`ALTER TABLE executions_history DETACH PARTITION ${name}`);
    for (const { name } of leaves.filter((leaf) => leaf.name !== 'executions_h_legacy')) {
      await db.query(`INSERT INTO executions_h_legacy SELECT * FROM ${name}`);
      await db.query(`DROP TABLE ${name}`);
    }
    await db.query(`DROP TABLE executions_history`);
    await db.query(`ALTER TABLE executions_h_legacy RENAME TO executions_history`);
    for (const [name] of HISTORY_INDEXES) {
      await db.query(`ALTER INDEX ${name.replace(/^executions_/, 'executions_h_legacy_')} RENAME TO ${name}`);
    }
    await db.query(`ALTER INDEX executions_history_worker_finished_idx RENAME TO ${WORKER_INDEX_GIVEN_NAME}`);
    await db.query(`ALTER TABLE executions_history ADD CONSTRAINT executions_history_pkey PRIMARY KEY (id)`);
    await db.query(`DROP INDEX executions_h_legacy_id_idx`);
    await db.query(
      `ALTER TABLE executions_history ADD CONSTRAINT executions_history_final CHECK (status IN ${FINAL}) NOT VALID`,
    );
    await db.query(`ALTER TABLE executions_history VALIDATE CONSTRAINT executions_history_final`);
    await db.query(`ALTER TABLE executions ATTACH PARTITION executions_history FOR VALUES IN ${FINAL}`);
    await db.query(`ALTER TABLE executions_history DROP CONSTRAINT executions_history_final`);
    for (const sql of HISTORY_TRIGGERS) await db.query(sql);
  }
}
