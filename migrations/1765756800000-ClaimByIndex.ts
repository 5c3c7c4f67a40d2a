import { MigrationInterface, QueryRunner } from 'typeorm';

/** The conditions of the claim's indexes, as Placement created them (the planner matches their text). */
const LIMITED = '(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)';
const LANE = `(CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)`;

/**
 * The claim of unlimited runs, as a function whose plan is always executions_claim_idx read in
 * claim order. As a plain statement, its plan followed the statistics: when they were older than
 * the queue (a burst of 2,000 runs queued after a quiet spell, before autovacuum analyzed the
 * table), PostgreSQL took the queued rows from executions_status_newest_idx and sorted them all,
 * for each claim of a few (2.9 ms instead of 0.1 ms with 2,000 queued; the c8 burst's claims took
 * 2.4 s instead of 0.08 s in all). Without sorting there is no such plan, and one generic plan
 * per session is planned once, where the statement was planned anew for every claim.
 *
 * The worker ($4: its id, $3: its labels) may run a run whose selector is among its labels and
 * that is pinned nowhere else, unless it drains: the rule the repository's claim of limited runs
 * and its wake-up query also follow (mayRun).
 */
const CLAIM_FREE_FUNCTION = `
  CREATE FUNCTION orbit_claim_free(due timestamptz, wanted integer, labels jsonb, worker text)
    RETURNS SETOF executions LANGUAGE sql VOLATILE
    SET enable_sort = off SET plan_cache_mode = force_generic_plan AS $$
    SELECT * FROM executions
     WHERE status = 'QUEUED' AND NOT ${LIMITED} AND due_at <= due
       AND worker_selector <@ labels AND (pinned_worker IS NULL OR pinned_worker = worker)
       AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = worker AND w.draining)
     ORDER BY priority DESC, due_at, id LIMIT wanted FOR UPDATE SKIP LOCKED
  $$`;

/**
 * Whether any limited run is queued: the first entry of executions_claim_lane_idx, read in its
 * order for the same reason (with old statistics, an EXISTS read all queued rows from
 * executions_status_newest_idx to find none).
 */
const LIMITED_QUEUED_FUNCTION = `
  CREATE FUNCTION orbit_limited_queued() RETURNS boolean LANGUAGE sql STABLE
    SET enable_sort = off SET plan_cache_mode = force_generic_plan AS $$
    SELECT coalesce((SELECT true FROM executions WHERE status = 'QUEUED' AND ${LIMITED} ORDER BY ${LANE} LIMIT 1), false)
  $$`;

export class ClaimByIndex1765756800000 implements MigrationInterface {
  name = 'ClaimByIndex1765756800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(CLAIM_FREE_FUNCTION);
    await db.query(LIMITED_QUEUED_FUNCTION);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION orbit_limited_queued`);
    await db.query(`DROP FUNCTION orbit_claim_free`);
  }
}
