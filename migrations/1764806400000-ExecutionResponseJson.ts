import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ExecutionResponse's fields in its order: the JSON name, the execution column it shows, and
 * that column's type (a timestamp is shown as `toISOString()` text). The composite type, the
 * function and the trigger's column list are all made from it.
 */
const FIELDS: [name: string, column: string, type: string][] = [
  ['id', 'id', 'uuid'],
  ['jobId', 'job_id', 'uuid'],
  ['command', 'command', 'text'],
  ['maxRetries', 'max_retries', 'integer'],
  ['timeoutSeconds', 'timeout_seconds', 'integer'],
  ['status', 'status', 'text'],
  ['attempt', 'attempt', 'integer'],
  ['trigger', 'trigger', 'text'],
  ['scheduledFor', 'scheduled_for', 'timestamptz'],
  ['retryOf', 'retry_of', 'uuid'],
  ['dueAt', 'due_at', 'timestamptz'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['startedAt', 'started_at', 'timestamptz'],
  ['finishedAt', 'finished_at', 'timestamptz'],
  ['exitCode', 'exit_code', 'integer'],
  ['errorMessage', 'error_message', 'text'],
  ['workerId', 'worker_id', 'text'],
];

const isTimestamp = (type: string) => type === 'timestamptz';

/** `toISOString()` of a timestamp, in SQL: both truncate to milliseconds, whatever the session's TimeZone. */
const iso = (column: string) => `to_char(e.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Each execution carries the JSON the API answers for it (ExecutionResponse, field for field and
 * in its order), written by PostgreSQL whenever a shown column changes. Reads then send stored
 * text: formatting the timestamps and the JSON was most of a 50-row page's cost. The cost moves
 * to the writes (a few per execution) and to the row (about 500 bytes more).
 *
 * The trigger fires ALWAYS, also under `session_replication_role = replica` (bulk loads). Rows
 * older than this migration keep a NULL until they next change, and reads compute theirs with
 * orbit_execution_json: rewriting every row here would lock the table for about 90 s per
 * million executions. Retention prunes them in time. A change to ExecutionResponse needs a
 * migration that replaces orbit_execution_json and rewrites the column; the read model's test
 * compares the two for every state.
 */
export class ExecutionResponseJson1764806400000 implements MigrationInterface {
  name = 'ExecutionResponseJson1764806400000';

  async up(db: QueryRunner): Promise<void> {
    // row_to_json of a row cast to this type writes the JSON compactly, with ExecutionResponse's
    // names, about twice as fast as of a sub-SELECT
    await db.query(`
      CREATE TYPE orbit_execution_response AS (
        ${FIELDS.map(([name, , type]) => `"${name}" ${isTimestamp(type) ? 'text' : type}`).join(', ')}
      )`);
    // PL/pgSQL, not SQL: an SQL function is inlined into every query that names it, and planning
    // the read model's fallback then cost more than reading the stored JSON
    await db.query(`
      CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN row_to_json(ROW(
          ${FIELDS.map(([, column, type]) => (isTimestamp(type) ? iso(column) : `e.${column}`)).join(', ')}
        )::orbit_execution_response)::text;
      END $$`);
    await db.query(`
      CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.response_json := orbit_execution_json(NEW);
        RETURN NEW;
      END $$`);
    await db.query(`ALTER TABLE executions ADD COLUMN response_json text`);
    // only an UPDATE of a shown column fires it: a lease renewal does not
    const shown = FIELDS.map(([, column]) => column).join(', ');
    await db.query(`
      CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF ${shown} ON executions
      FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`);
    await db.query(`ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER executions_write_response_json ON executions`);
    await db.query(`ALTER TABLE executions DROP COLUMN response_json`);
    await db.query(`DROP FUNCTION orbit_write_execution_json`);
    await db.query(`DROP FUNCTION orbit_execution_json`);
    await db.query(`DROP TYPE orbit_execution_response`);
  }
}
