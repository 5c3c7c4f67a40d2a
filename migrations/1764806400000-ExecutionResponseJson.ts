import { MigrationInterface, QueryRunner } from 'typeorm';

/** The execution columns that `response_json` shows: an UPDATE that sets none of them (a lease renewal) skips it. */
const SHOWN = [
  'id',
  'job_id',
  'command',
  'max_retries',
  'timeout_seconds',
  'status',
  'attempt',
  'trigger',
  'scheduled_for',
  'retry_of',
  'due_at',
  'created_at',
  'started_at',
  'finished_at',
  'exit_code',
  'error_message',
  'worker_id',
];

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
    // ExecutionResponse's fields, named and in order: row_to_json of a row cast to this type
    // writes the JSON compactly, about twice as fast as of a sub-SELECT
    await db.query(`
      CREATE TYPE orbit_execution_response AS (
        id uuid, "jobId" uuid, command text, "maxRetries" integer, "timeoutSeconds" integer, status text,
        attempt integer, trigger text, "scheduledFor" text, "retryOf" uuid, "dueAt" text, "createdAt" text,
        "startedAt" text, "finishedAt" text, "exitCode" integer, "errorMessage" text, "workerId" text
      )`);
    // PL/pgSQL, not SQL: an SQL function is inlined into every query that names it, and planning
    // the read model's fallback then cost more than reading the stored JSON
    await db.query(`
      CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
      BEGIN
        RETURN row_to_json(ROW(
          e.id, e.job_id, e.command, e.max_retries, e.timeout_seconds, e.status, e.attempt, e.trigger,
          ${iso('scheduled_for')}, e.retry_of, ${iso('due_at')}, ${iso('created_at')}, ${iso('started_at')},
          ${iso('finished_at')}, e.exit_code, e.error_message, e.worker_id
        )::orbit_execution_response)::text;
      END $$`);
    await db.query(`
      CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.response_json := orbit_execution_json(NEW);
        RETURN NEW;
      END $$`);
    await db.query(`ALTER TABLE executions ADD COLUMN response_json text`);
    await db.query(`
      CREATE TRIGGER executions_write_response_json BEFORE INSERT OR UPDATE OF ${SHOWN.join(', ')} ON executions
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
