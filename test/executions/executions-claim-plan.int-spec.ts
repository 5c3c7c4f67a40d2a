import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

/**
 * The claim's plan does not follow old statistics. When executions was last analyzed holding
 * finished runs only and a burst is queued since, PostgreSQL believes no run is queued: a plain
 * statement then read every queued row (from executions_status_newest_idx) and sorted them, for
 * each claim of a few. Counted in buffers, which no machine's speed changes.
 */
describe('the claim with statistics older than the queue', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    const jobId = await insertJob(db, { name: 'burst' });
    const runs = (status: string, count: number) =>
      db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
           created_at, started_at, finished_at, exit_code)
         SELECT gen_random_uuid(), $1, 'true', 0, 60, $2, 1, 'MANUAL', now() - interval '1 minute', now(),
                CASE WHEN $2 = 'SUCCEEDED' THEN now() END, CASE WHEN $2 = 'SUCCEEDED' THEN now() END,
                CASE WHEN $2 = 'SUCCEEDED' THEN 0 END
           FROM generate_series(1, $3)`,
        [jobId, status, count],
      );
    await runs('SUCCEEDED', 2000);
    await db.sql('ANALYZE executions');
    await runs('QUEUED', 2000);
  });

  afterAll(async () => {
    await db?.drop();
  });

  const cost = (statement: string, params: unknown[] = []) => planCost(db.sql, statement, params);

  it('claims 3 of 2,000 queued runs from the claim index, touching a few pages, not every queued row', async () => {
    const claim = await cost(`SELECT id FROM orbit_claim_free(now(), 3, '{"host": "h"}', 'w')`);
    expect(claim.rows).toBe(3);
    expect(claim.buffers).toBeLessThan(40);
  });

  it('finds out that no limited run is queued from the first entry of its index', async () => {
    const probe = await cost(`SELECT orbit_limited_queued()`);
    expect(probe.buffers).toBeLessThan(10);
    expect((await db.sql('SELECT orbit_limited_queued() AS queued')).rows[0]).toEqual({ queued: false });
  });
});
