import { DataSource } from 'typeorm';
import { SqlExecutionRepository } from '../../src/executions/infrastructure/sql-execution.repository.js';
import { SqlRunsOverview } from '../../src/executions/infrastructure/sql-runs-overview.js';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const T0 = new Date('2026-12-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const WORKER = { id: 'w1', labels: { region: 'eu' } };

/**
 * The dues of the queued runs, read without an index of every queued run's due: those with no
 * limit from the claim's index (priority first, then due), the limited ones from the index of
 * their dues. What the worker wakes up for, and what the overview tells of the queue.
 */
describe('the dues of the queued runs', () => {
  let db: TestDatabase;
  let source: DataSource;
  let executions: SqlExecutionRepository;
  let overview: SqlRunsOverview;
  let jobId: string;

  /** `count` queued runs due `due` seconds after T0 (and a second apart), with `more` columns set. */
  const queue = (due: number, more: Record<string, unknown> = {}, count = 1) => {
    const names = Object.keys(more);
    return db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at${names.map((name) => `, ${name}`).join('')})
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $2::timestamptz + n * interval '1 second',
              $3${names.map((_, i) => `, $${i + 5}`).join('')}
         FROM generate_series(0, $4 - 1) AS n`,
      [jobId, at(due), T0, count, ...Object.values(more)],
    );
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    source = new DataSource(dataSourceOptions(db.url, 1));
    await source.initialize();
    executions = new SqlExecutionRepository(new Database(source));
    overview = new SqlRunsOverview(new Database(source));
    jobId = await insertJob(db, { name: 'dues' });
    await queue(3000, { priority: 5 });
    await queue(300, {}, 2000);
    await queue(120, { priority: -3 });
    await queue(240, { max_concurrent: 1 }, 3);
    await queue(60, { worker_selector: JSON.stringify({ region: 'us' }) });
    await queue(90, { pinned_worker: 'w2' });
  });

  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('wakes a worker for the earliest due it may run, whatever its priority or limit', async () => {
    // the runs due at +60 and +90 s are for other workers
    expect(await executions.earliestDue(T0, WORKER)).toEqual(at(120));
    expect(await executions.earliestDue(at(120), WORKER)).toEqual(at(240));
    expect(await executions.earliestDue(at(242), WORKER)).toEqual(at(300));
    expect(await executions.earliestDue(at(300), WORKER)).toEqual(at(301));
    expect(await executions.earliestDue(at(2299), WORKER)).toEqual(at(3000));
    expect(await executions.earliestDue(at(3000), WORKER)).toBeNull();
    expect(await executions.earliestDue(T0, { id: 'w3', labels: { region: 'us' } })).toEqual(at(60));
  });

  it('tells the queue: how many wait, how many are late, and the oldest due of all', async () => {
    const glance = await overview.atAGlance(at(-3600), at(242), 10_000);
    expect(glance).toMatchObject({ queued: 2007, late: 5, oldestQueuedDueAt: at(60) });
    expect((await overview.atAGlance(at(-3600), at(242), 100)).queued).toBe(100);
  });

  it('reads a few pages for the wake-up, however many runs wait', async () => {
    await db.sql('ANALYZE executions');
    const statement = (await import('../../src/executions/infrastructure/claim-lanes.js')).earliestDue(
      ` AND due_at > $1`,
    );
    const wake = await planCost(db.sql, `SELECT ${statement} AS due`, [at(0)]);
    expect(wake.buffers).toBeLessThan(30);
  });
});
