import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The columns a save writes, after the row's key and the version it was read with, as they stood
 * when this function was made. A change to that list (a new field that changes after the insert)
 * is a migration that replaces the function; a test holds the two lists equal.
 */
const SAVED: readonly [column: string, type: string][] = [
  ['id', 'uuid'],
  ['version', 'integer'],
  ['status', 'text'],
  ['started_at', 'timestamptz'],
  ['finished_at', 'timestamptz'],
  ['exit_code', 'integer'],
  ['error_message', 'text'],
  ['worker_id', 'text'],
  ['failure_cause', 'text'],
  ['waiting_for', 'text'],
];
const CHANGING = SAVED.slice(2).map(([column]) => column);

/**
 * A batch of executions saved on the version each was read with: the writes that landed answer
 * their id. As a plain statement it was planned anew for every save, since its arrays' lengths
 * are known only then and a custom plan always looked cheaper than the generic one: about 0.1 ms
 * of PostgreSQL per save beside a few hundred jobs, 0.25 ms beside 10,000. As a function it is
 * planned once per session, the plan a walk of the arrays probing executions_pkey (hash and
 * merge joins off: the generic plan's guess of the arrays' length must not turn it into a scan
 * of the table). The lease ($n, the last argument) is a running run's own: set by a claim, kept
 * by its other saves, cleared by any other status.
 */
function saveFunction(): string {
  const lease = `$${SAVED.length + 1}`;
  return `
  CREATE FUNCTION orbit_save_executions(${SAVED.map(([column, type]) => `${column} ${type}[]`).join(', ')}, lease timestamptz)
    RETURNS SETOF uuid LANGUAGE sql VOLATILE
    SET plan_cache_mode = force_generic_plan SET enable_hashjoin = off SET enable_mergejoin = off AS $$
    UPDATE executions e
       SET ${CHANGING.map((column) => `${column} = v.${column}`).join(', ')}, version = e.version + 1,
           lease_expires_at = CASE WHEN v.status = 'RUNNING' THEN coalesce(${lease}, e.lease_expires_at) END
      FROM unnest(${SAVED.map((_, i) => `$${i + 1}`).join(', ')}) AS v (${SAVED.map(([column]) => column).join(', ')})
     WHERE e.id = v.id AND e.version = v.version
    RETURNING e.id
  $$`;
}

export class SaveByFunction1765929600000 implements MigrationInterface {
  name = 'SaveByFunction1765929600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(saveFunction());
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION orbit_save_executions`);
  }
}
