import { QueryRunner } from 'typeorm';

/**
 * A field of ExecutionResponse: its JSON name, the execution column it shows, and that column's
 * type (a timestamp is shown as `toISOString()` text).
 */
export type ResponseField = readonly [name: string, column: string, type: string];

const isTimestamp = (type: string) => type === 'timestamptz';

/** `toISOString()` of a timestamp, in SQL: both truncate to milliseconds, whatever the session's TimeZone. */
const iso = (column: string) => `to_char(e.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The trigger function that stores the JSON of every row it fires for (CREATE or CREATE OR REPLACE it). */
export const EVERY_RUN_JSON_WRITER = `FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`;

/**
 * The one that stores the JSON of finished runs only (since the FinalRunsResponseJson migration). A
 * queued or running run is few rows of a list and changes again within seconds: its JSON is made as
 * it is read, and a run stores its JSON once, when it ends, instead of on every move. A row it
 * leaves NULL is read through orbit_execution_json, as any other.
 */
export const FINAL_RUN_JSON_WRITER = `FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := CASE WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') THEN orbit_execution_json(NEW) END;
      RETURN NEW;
    END $$`;

/**
 * Makes `response_json` (see the ExecutionResponseJson migration) show `fields`: the whole of
 * ExecutionResponse, in its order. It replaces the composite type, orbit_execution_json and the
 * trigger that stores it, and empties the column by dropping and adding it again: both are
 * instant, where rewriting the JSON of every row would lock `executions` for about 90 s per
 * million. Each row's JSON is then made as it is read until its next change stores it.
 *
 * Migrations hold their SQL literally, so that what ran on an installation never changes: this
 * is what a migration that changes ExecutionResponse writes out (run it on a recording query
 * runner), and what the response-JSON test checks the migrated database against.
 */
export async function replaceExecutionResponseJson(db: QueryRunner, fields: readonly ResponseField[]): Promise<void> {
  await db.query(`DROP TRIGGER IF EXISTS executions_write_response_json ON executions`);
  await db.query(`DROP TRIGGER IF EXISTS executions_write_response_json_update ON executions_history`);
  await db.query(`ALTER TABLE executions DROP COLUMN IF EXISTS response_json`);
  await db.query(`DROP FUNCTION IF EXISTS orbit_write_execution_json()`);
  await db.query(`DROP FUNCTION IF EXISTS orbit_execution_json(executions)`);
  await db.query(`DROP TYPE IF EXISTS orbit_execution_response`);
  // row_to_json of a row cast to this type writes the JSON compactly, with ExecutionResponse's
  // names, about twice as fast as of a sub-SELECT
  await db.query(`
    CREATE TYPE orbit_execution_response AS (
      ${fields.map(([name, , type]) => `"${name}" ${isTimestamp(type) ? 'text' : type}`).join(', ')}
    )`);
  // PL/pgSQL, not SQL: an SQL function is inlined into every query that names it, and planning
  // the read model's fallback then cost more than reading the stored JSON
  await db.query(`
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        ${fields.map(([, column, type]) => (isTimestamp(type) ? iso(column) : `e.${column}`)).join(', ')}
      )::orbit_execution_response)::text;
    END $$`);
  await db.query(`CREATE ${EVERY_RUN_JSON_WRITER}`);
  await db.query(`ALTER TABLE executions ADD COLUMN response_json text`);
  // a run reaches the history by an INSERT (written there, or moved there as it ends); in the
  // history, only an UPDATE of a shown column fires it
  await db.query(`
    CREATE TRIGGER executions_write_response_json BEFORE INSERT
    ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`);
  await db.query(`ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`);
  await db.query(`
    CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF ${fields.map(([, column]) => column).join(', ')}
    ON executions_history FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`);
  await db.query(`ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`);
}

/**
 * What a migration after FinalRunsResponseJson calls when it changes ExecutionResponse:
 * replaceExecutionResponseJson, then the writer of finished runs' JSON again.
 */
export async function replaceFinalRunsResponseJson(db: QueryRunner, fields: readonly ResponseField[]): Promise<void> {
  await replaceExecutionResponseJson(db, fields);
  await db.query(`CREATE OR REPLACE ${FINAL_RUN_JSON_WRITER}`);
}
