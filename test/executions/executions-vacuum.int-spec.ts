import pg from 'pg';
import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const HISTORY = 100_000;
const QUEUED = 4_000;
/** Runs whose dead versions sit on under 2 % of the table's pages; then enough to see in the claim's. */
const FEW = 50;
const MANY = 3_500;

/**
 * The queue is the active partition of executions; the history its other partition. Every run a
 * worker claimed leaves dead entries in the queue's indexes, ahead of the live ones, and the next
 * claims walk them until a VACUUM removes them. Here a large history and a few thousand runs make
 * the case where PostgreSQL, by default, would skip cleaning the indexes of a table whose dead rows
 * sit on under 2 % of its pages: the queue is vacuumed after a number of dead rows that does not
 * grow with anything kept, and always cleans its indexes. Counted in buffers, which no machine's
 * speed changes.
 */
describe('the queue after many runs, beside a large history', () => {
  let db: TestDatabase;
  const claim = () => planCost(db.sql, `SELECT id FROM orbit_claim_free(now(), 3, '{"host": "h"}', 'w')`);

  beforeAll(async () => {
    db = await createTestDatabase();
    const jobId = await insertJob(db, { name: 'busy' });
    // finished runs as a bulk load writes them (no events)
    await db.sql('SET session_replication_role = replica');
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code, version)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', t, t, t, t, 0, 3
         FROM generate_series(1, $2) AS g, LATERAL (SELECT now() - interval '1 day' + g * interval '1 ms' AS t) AS at`,
      [jobId, HISTORY],
    );
    await db.sql('RESET session_replication_role');
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() - interval '1 hour' + g * interval '1 ms', now()
         FROM generate_series(1, $2) AS g`,
      [jobId, QUEUED],
    );
    await db.sql('VACUUM (ANALYZE) executions');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('starts vacuum after 1,000 dead rows and a hundredth of the queue, and always cleans the indexes', async () => {
    const { rows } = await db.sql(`SELECT reloptions FROM pg_class WHERE oid = 'executions_active'::regclass`);
    expect(rows[0].reloptions).toEqual(
      expect.arrayContaining([
        'autovacuum_vacuum_threshold=1000',
        'autovacuum_vacuum_scale_factor=0.01',
        'vacuum_index_cleanup=on',
      ]),
    );
  });

  it("cleans the queue's indexes even when its dead rows sit on a few of its pages", async () => {
    await runThrough(FEW);
    const report = await verboseVacuum(db.url);
    // PostgreSQL's default would skip the indexes ("index scan bypassed"), leaving the claim's dead entries
    expect(report).toMatch(/vacuuming "[^"]*\.public\.executions_active": index scans: 1/);
  });

  it('walks the dead entries of claimed runs at every claim until a vacuum removes them', async () => {
    const before = await claim();
    expect(before.rows).toBe(3);
    await runThrough(MANY);
    const walked = await claim();
    expect(walked.buffers).toBeGreaterThan(before.buffers + 10);
    await verboseVacuum(db.url);
    const after = await claim();
    expect(after.rows).toBe(3);
    expect(after.buffers).toBeLessThanOrEqual(before.buffers + 5);
  });

  /** The oldest queued runs go through as a worker moves them: one row version per move. */
  async function runThrough(count: number): Promise<void> {
    await db.sql(
      `UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'w',
              lease_expires_at = now() + interval '1 minute', version = version + 1
        WHERE id IN (SELECT id FROM executions WHERE status = 'QUEUED' ORDER BY due_at LIMIT $1)`,
      [count],
    );
    await db.sql(
      `UPDATE executions SET status = 'SUCCEEDED', finished_at = now(), exit_code = 0, lease_expires_at = NULL,
              version = version + 1
        WHERE status = 'RUNNING'`,
    );
  }
});

/** VACUUM (VERBOSE) the queue on a connection of its own; its report, which PostgreSQL sends as notices. */
async function verboseVacuum(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  const notices: string[] = [];
  client.on('notice', (notice) => notices.push(notice.message ?? ''));
  await client.connect();
  try {
    await client.query('VACUUM (VERBOSE) executions_active');
  } finally {
    await client.end();
  }
  return notices.join('\n');
}
