import { QueryRunner } from 'typeorm';

/**
 * A field of ExecutionResponse: its JSON name, the execution column it shows, and that column's
 * type (a timestamp is shown as `toISOString()` text).
 */
export type ResponseField = readonly [name: string, column: string, type: string];

const isTimestamp = (type: string) => type === 'timestamptz';

/** `toISOString()` of a timestamp, in SQL: both truncate to milliseconds, whatever the session's TimeZone. */
const iso = (column: string) => `to_char(e.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Makes orbit_execution_json (see the RunJsonBuiltAtRead migration) write `fields`: the whole of
 * ExecutionResponse, in its order. It replaces the composite type and the function; nothing
 * stores the JSON, so no row is rewritten.
 *
 * Migrations hold their SQL literally, so that what ran on an installation never changes: this
 * is what a migration that changes ExecutionResponse writes out (run it on a recording query
 * runner), and what the response-JSON test checks the migrated database against.
 */
export async function replaceExecutionResponseJson(db: QueryRunner, fields: readonly ResponseField[]): Promise<void> {
  await db.query(`DROP FUNCTION IF EXISTS orbit_execution_json(executions)`);
  await db.query(`DROP TYPE IF EXISTS orbit_execution_response`);
  // row_to_json of a row cast to this type writes the JSON compactly, with ExecutionResponse's
  // names, about twice as fast as of a sub-SELECT
  await db.query(`
    CREATE TYPE orbit_execution_response AS (
      ${fields.map(([name, , type]) => `"${name}" ${isTimestamp(type) ? 'text' : type}`).join(', ')}
    )`);
  // PL/pgSQL, not SQL: an SQL function is inlined into every query that names it, and its 27
  // fields would be planned again with each of the read model's queries
  await db.query(`
    CREATE FUNCTION orbit_execution_json(e executions) RETURNS text LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN row_to_json(ROW(
        ${fields.map(([, column, type]) => (isTimestamp(type) ? iso(column) : `e.${column}`)).join(', ')}
      )::orbit_execution_response)::text;
    END $$`);
}
