import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's start, end and the history's indexes enter fewer index entries (three fewer per run
 * that succeeds), each replaced by a read that costs about what it did:
 *
 * - `executions_active_started_seq_idx` goes: a running run's start event is read through
 *   `executions_running_idx`, whose entries are the running runs (as many as the workers' slots);
 *   in the queue partition a run has a start seq exactly when it runs.
 * - the history's `executions_started_seq_idx` keeps only the runs whose end came more than
 *   START_TO_END_SEQS seqs after their start. Any other finished run's start event lies at most
 *   that far before its end event, so a reader finds it through `executions_finished_seq_idx`,
 *   in a range that many seqs longer than the ends it reads (see `SqlEventLog`); that index now
 *   carries the start's seq and the job, so the reader passes over the runs it does not answer
 *   in the index alone.
 * - the history's `executions_status_newest_idx` keeps the runs that did not succeed;
 *   `executions_newest_idx` carries the status, so counts by status over a window still read one
 *   index alone, and a list of succeeded runs (most of the history) walks the newest ones.
 *
 * Each index of the history is built anew on every day's partition (about a second per index
 * and million runs); nothing else is read or written.
 */
/** As `START_TO_END_SEQS` of the event log's reader, which a test holds equal to this. */
const START_TO_END_SEQS = 5_000;

const START_COLUMNS = `started_seq AS seq, 'execution.running'::text AS type, started_at AS at, job_id, id AS execution_id,
  'QUEUED'::text AS from_status, 'RUNNING'::text AS to_status, attempt, trigger, NULL::integer AS exit_code,
  NULL::text AS error_message, worker_id, false AS retry_queued, NULL::text AS cause, NULL::timestamptz AS slot,
  NULL::jsonb AS detail`;
const EVENT_NAMES = `seq, type, at, job_id, execution_id, from_status, to_status, attempt, trigger, exit_code, error_message,
  worker_id, retry_queued, cause, slot, detail`;

const LONG_START = `finished_seq - started_seq > ${START_TO_END_SEQS}`;

/**
 * The history's index `name` made again as `shape`, under its name; its part on the history from
 * before the days keeps the name the HistoryByDay migration gave it (which its `down` renames back).
 */
async function rebuild(db: QueryRunner, name: string, shape: string): Promise<void> {
  await db.query(`CREATE INDEX ${name}_new ON executions_history ${shape}`);
  await db.query(`DROP INDEX ${name}`);
  await db.query(`ALTER INDEX ${name}_new RENAME TO ${name}`);
  const [legacy] = (await db.query(
    `SELECT c.relname AS part FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.inhparent = $1::regclass AND x.indrelid = to_regclass('executions_h_legacy')`,
    [name],
  )) as { part: string }[];
  if (legacy)
    await db.query(`ALTER INDEX ${legacy.part} RENAME TO ${name.replace(/^executions_/, 'executions_h_legacy_')}`);
}

export class FewerIndexEntries1766516400000 implements MigrationInterface {
  name = 'FewerIndexEntries1766516400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE VIEW execution_running_start_events AS
      SELECT ${START_COLUMNS} FROM executions_active WHERE status = 'RUNNING' AND started_seq IS NOT NULL`);
    await db.query(`CREATE VIEW execution_finished_start_events AS
      SELECT ${START_COLUMNS}, finished_seq AS end_seq FROM executions_history WHERE started_seq IS NOT NULL`);
    await db.query(`CREATE OR REPLACE VIEW execution_start_events AS
      SELECT * FROM execution_running_start_events
      UNION ALL SELECT ${EVENT_NAMES} FROM execution_finished_start_events`);
    await db.query(`DROP INDEX executions_active_started_seq_idx`);

    await rebuild(db, 'executions_started_seq_idx', `(started_seq) WHERE ${LONG_START}`);
    await rebuild(
      db,
      'executions_finished_seq_idx',
      `(finished_seq) INCLUDE (started_seq, job_id) WHERE finished_seq IS NOT NULL`,
    );
    await rebuild(db, 'executions_newest_idx', `(created_at DESC, id DESC) INCLUDE (status)`);
    await rebuild(db, 'executions_status_newest_idx', `(status, created_at DESC, id DESC) WHERE status <> 'SUCCEEDED'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await rebuild(db, 'executions_status_newest_idx', `(status, created_at DESC, id DESC)`);
    await rebuild(db, 'executions_newest_idx', `(created_at DESC, id DESC)`);
    await rebuild(db, 'executions_finished_seq_idx', `(finished_seq) WHERE finished_seq IS NOT NULL`);
    await rebuild(db, 'executions_started_seq_idx', `(started_seq) WHERE started_seq IS NOT NULL`);
    await db.query(
      `CREATE INDEX executions_active_started_seq_idx ON executions_active (started_seq) WHERE started_seq IS NOT NULL`,
    );
    await db.query(`CREATE OR REPLACE VIEW execution_start_events AS
      SELECT ${START_COLUMNS} FROM executions WHERE started_seq IS NOT NULL`);
    await db.query(`DROP VIEW execution_finished_start_events, execution_running_start_events`);
  }
}
