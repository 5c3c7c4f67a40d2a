import request from 'supertest';
import { dayOf } from '../../src/executions/domain/history-day.js';
import { OLDEST_KEPT, OLDEST_OVERDUE } from '../../src/executions/infrastructure/sql-execution-retention.repository.js';
import { insertRuns } from '../support/finished-runs.js';
import { planCost } from '../support/plan-cost.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date();
const ago = (days: number): Date => new Date(NOW.getTime() - days * DAY);

describe('the oldest run the history holds, on /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const gauge = async (): Promise<number> => {
    const { text } = await request(t.app.getHttpServer()).get('/metrics').expect(200);
    return Number(/^orbit_retention_oldest_kept_timestamp_seconds (\S+)$/m.exec(text)?.[1]);
  };
  const oldestFinished = async (): Promise<number> =>
    Number(
      (
        await t.db.sql(
          `SELECT coalesce(extract(epoch FROM min(created_at)), 0) AS at FROM executions
            WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')`,
        )
      ).rows[0].at,
    );

  it('is the creation of the oldest finished run stored, unfinished older ones aside; 0 while there is none', async () => {
    expect(await gauge()).toBe(0);
    const job = await insertJob(t.db, { name: 'kept' });
    await insertRuns(t.db, job, [ago(200)], 'QUEUED');
    expect(await gauge()).toBe(0);

    const [oldest] = await insertRuns(t.db, job, [ago(100)], 'FAILED');
    await insertRuns(t.db, job, [ago(50)]);
    expect(await gauge()).toBe(ago(100).getTime() / 1000);
    expect(await gauge()).toBe(await oldestFinished());

    await t.db.sql('DELETE FROM executions WHERE id = $1', [oldest]);
    expect(await gauge()).toBe(ago(50).getTime() / 1000);
    expect(await gauge()).toBe(await oldestFinished());
  });
});

/**
 * The statements behind the gauge and behind what a pass left, on a history of 100,000 runs with
 * 2,000 runs queued before all of them, counted in buffers (which no machine's speed changes):
 * a few probes, and a few per job, never a walk through the history.
 */
describe("the retention reads' cost", () => {
  const JOBS = 20;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (let j = 0; j < JOBS; j++) {
      const jobId = await insertJob(db, { name: `history-${j}` });
      await db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
           created_at, started_at, finished_at, exit_code)
         SELECT gen_random_uuid(), $1, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', at, at, at, at + interval '1 minute', 0
           FROM (SELECT now() - g * interval '1 hour' AS at FROM generate_series(1, 5000) g) AS runs`,
        [jobId],
      );
    }
    const queued = await insertJob(db, { name: 'stuck' });
    await insertRuns(
      db,
      queued,
      Array.from({ length: 2000 }, (_, i) => ago(1000 + i)),
      'QUEUED',
    );
    await db.sql('ANALYZE executions');
  }, 120_000);
  afterAll(() => db?.drop());

  /** How many partitions the history has (its days, the history from before them, the runs stored apart). */
  const historyLeaves = async (): Promise<number> => {
    const { rows } = await db.sql(
      `SELECT count(*)::int AS leaves FROM pg_inherits WHERE inhparent = 'executions_history'::regclass`,
    );
    return (rows[0] as { leaves: number }).leaves;
  };

  /** Every node of the statement's plan that reads a table, as `<node type> on <table>`. */
  const scans = async (statement: string, params: unknown[] = []): Promise<string[]> => {
    type Node = { 'Node Type': string; 'Relation Name'?: string; Plans?: Node[] };
    const walk = (node: Node): string[] => [
      ...(node['Relation Name'] ? [`${node['Node Type']} on ${node['Relation Name']}`] : []),
      ...(node.Plans ?? []).flatMap(walk),
    ];
    const { rows } = await db.sql(`EXPLAIN (FORMAT JSON) ${statement}`, params);
    return walk((rows[0] as { 'QUERY PLAN': [{ Plan: Node }] })['QUERY PLAN'][0].Plan);
  };

  it('the oldest kept: one probe of an index per day of the history', async () => {
    const leaves = await historyLeaves();
    const cost = await planCost(db.sql, OLDEST_KEPT);
    expect(cost.rows).toBe(1);
    expect(cost.buffers).toBeLessThan(3 * leaves);
    expect(await scans(OLDEST_KEPT)).toEqual(
      Array(leaves).fill(expect.stringMatching(/^Index (Only )?Scan on executions_h_/)),
    );
  });

  it('what a pass left: a few probes per job and day of the history, whatever each job holds', async () => {
    const leaves = await historyLeaves();
    for (const olderThan of [ago(30), ago(300)]) {
      const params = [olderThan, 100, dayOf(olderThan)];
      const cost = await planCost(db.sql, OLDEST_OVERDUE, params);
      expect(cost.buffers).toBeLessThan(JOBS * 5 * leaves);
      const read = await scans(OLDEST_OVERDUE, params);
      expect(read).toContain('Index Scan on executions_h_legacy');
      expect(read.filter((scan) => scan.startsWith('Seq Scan on executions'))).toEqual([]);
    }
  });

  it('answers the finish of the oldest run beyond the newest N of its job that finished before the age', async () => {
    const [row] = (await db.sql(OLDEST_OVERDUE, [ago(30), 100, dayOf(ago(30))])).rows;
    const { rows: expected } = await db.sql(
      `SELECT min(finished_at) AS "finishedAt" FROM (
         SELECT finished_at, created_at,
                row_number() OVER (PARTITION BY job_id ORDER BY created_at DESC, id DESC) AS newest
           FROM executions) AS ranked
        WHERE newest > 100 AND finished_at < $1 AND created_at < $2`,
      [ago(30), dayOf(ago(30))],
    );
    expect(row).toEqual(expected[0]);
    expect(row.finishedAt).not.toBeNull();
  });
});

describe('retention_health', () => {
  it('holds one row, written by its migration; a second is refused', async () => {
    const db = await createTestDatabase();
    try {
      expect((await db.sql('SELECT failing_since, overdue_since FROM retention_health')).rows).toEqual([
        { failing_since: null, overdue_since: null },
      ]);
      await expect(db.sql('INSERT INTO retention_health (one, updated_at) VALUES (false, now())')).rejects.toThrow(
        /check constraint/,
      );
      await expect(db.sql('INSERT INTO retention_health (updated_at) VALUES (now())')).rejects.toThrow(/duplicate key/);
    } finally {
      await db.drop();
    }
  });
});
