import { jest } from '@jest/globals';
import { ExecutionReadModel, ExecutionFilter } from '../../src/executions/application/execution-read-model.js';
import { JOB_BY_JOB, listStatement } from '../../src/executions/infrastructure/sql-execution-read-model.js';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { decodeCursor, PageRequest } from '../../src/shared/application/page.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { storedJob } from '../support/jobs.js';
import { planCost } from '../support/plan-cost.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const T0 = new Date('2026-11-30T10:00:00.000Z');
const RUNS = 60_000;
const PAGE: PageRequest = { limit: 20 };

/**
 * GET /executions for a caller bound to teams: the runs of their jobs, newest first, read by index
 * however few of the history's runs are theirs. A big team's runs are among the newest, found by
 * walking them; a small team's may be far back or none, so they are read job by job.
 */
describe("a team's executions, by index", () => {
  let t: TestApp;
  let reads: ExecutionReadModel;
  const jobsOf: Record<'big' | 'small' | 'idle', string[]> = { big: [], small: [], idle: [] };
  const sql = (text: string, params?: unknown[]) => t.db.sql(text, params);

  beforeAll(async () => {
    t = await createTestApp();
    reads = t.app.get(ExecutionReadModel);
    const sizes = { big: JOB_BY_JOB + 5, small: 3, idle: 1 };
    for (const [team, size] of Object.entries(sizes) as [keyof typeof jobsOf, number][]) {
      await sql(`INSERT INTO teams (name, created_at) VALUES ($1, now())`, [team]);
      for (let i = 0; i < size; i++) {
        const job = await storedJob(t, { maxRetries: 0 });
        await sql(`UPDATE jobs SET team = $2 WHERE id = $1`, [job.id, team]);
        jobsOf[team].push(job.id);
      }
    }
    // the big team's jobs ran every few seconds for days; the small team's runs are the oldest (a
    // run of its first job each hour for a day, one of them failed); the idle team never ran
    await sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + n % cardinality($1::uuid[])], 'true', 0, 60, 'SUCCEEDED', 1,
              'MANUAL', s, s, s, s + interval '2 seconds', 0
         FROM generate_series(1, $3::int) AS n, LATERAL (SELECT $2::timestamptz - n * interval '5 seconds' AS s) AS at`,
      [jobsOf.big, T0, RUNS],
    );
    await sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code, error_message)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, CASE WHEN n = 7 THEN 'FAILED' ELSE 'SUCCEEDED' END, 1, 'MANUAL',
              s, s, s, s + interval '2 seconds', CASE WHEN n = 7 THEN 1 ELSE 0 END,
              CASE WHEN n = 7 THEN 'exit code 1' END
         FROM generate_series(1, 24) AS n,
              LATERAL (SELECT $2::timestamptz - $3::int * interval '5 seconds' - n * interval '1 hour' AS s) AS at`,
      [jobsOf.small[0], T0, RUNS],
    );
    await sql('ANALYZE');
  }, 120_000);

  afterAll(() => t?.close());

  /** The ids of the page, as a plain query of the team's runs answers them. */
  async function expected(team: keyof typeof jobsOf, extra = '', limit = PAGE.limit): Promise<string[]> {
    const { rows } = await sql(
      `SELECT id FROM executions WHERE job_id = ANY ($1::uuid[]) ${extra}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      [jobsOf[team]],
    );
    return rows.map((row: { id: string }) => row.id);
  }

  const ids = (items: string[]) => items.map((item) => (JSON.parse(item) as { id: string }).id);

  /** What each way of reading answers, read as listJson reads it. */
  async function both(filter: ExecutionFilter, page: PageRequest = PAGE): Promise<[string[], string[]]> {
    const read = async (jobByJob: boolean) => {
      const { text, params } = listStatement(filter, page, jobByJob);
      const { rows } = await sql(text, params);
      return ids(rows.slice(0, page.limit).map((row: { json: string }) => row.json));
    };
    return [await read(false), await read(true)];
  }

  it('answers the same page either way: newest first, with the other filters and the cursor', async () => {
    for (const team of ['big', 'small', 'idle'] as const) {
      const teams = [team];
      const first = await expected(team);
      expect(await both({ teams })).toEqual([first, first]);
      if (first.length === 0) continue;
      const failed = await expected(team, `AND status = 'FAILED'`);
      expect(await both({ teams, status: ExecutionStatus.FAILED })).toEqual([failed, failed]);
      // the page after the first: a cursor made by listJson
      const page = await reads.listJson({ teams }, { limit: 5 });
      const next = await expected(team, '', 10);
      expect(await both({ teams }, { limit: 5, cursor: decodeCursor(page.nextCursor!) })).toEqual([
        next.slice(5),
        next.slice(5),
      ]);
    }
    const mixed = [...jobsOf.big, ...jobsOf.small];
    const { rows } = await sql(
      `SELECT id FROM executions WHERE job_id = ANY ($1::uuid[]) ORDER BY created_at DESC, id DESC LIMIT 20`,
      [mixed],
    );
    expect(await both({ teams: ['big', 'small'] })).toEqual([rows.map((r) => r.id), rows.map((r) => r.id)]);
  });

  it("reads a small team's runs job by job and a big team's by the newest runs, each in a few pages", async () => {
    const database = t.app.get(Database);
    const spy = jest.spyOn(database, 'rows');
    try {
      for (const [team, jobByJob] of [
        ['big', false],
        ['small', true],
        ['idle', true],
      ] as const) {
        spy.mockClear();
        const page = await reads.listJson({ teams: [team] }, PAGE);
        expect(ids(page.items)).toEqual(await expected(team));
        const statement = spy.mock.calls.map(([text]) => text).find((text) => text.includes('FROM executions'));
        expect({ team, jobByJob: statement?.includes('FROM jobs j CROSS JOIN LATERAL') }).toEqual({ team, jobByJob });

        const { text, params } = listStatement({ teams: [team] }, PAGE, jobByJob);
        const cost = await planCost(sql, text, params);
        expect({ team, rows: cost.rows }).toEqual({ team, rows: (await expected(team, '', PAGE.limit + 1)).length });
        // the walk of the newest runs would read the whole history for the small team's, far back
        expect({ team, cheap: cost.buffers < 300 }).toEqual({ team, cheap: true });
      }
      // a job named keeps to that job's index, whatever its team
      spy.mockClear();
      await reads.listJson({ teams: ['small'], jobId: jobsOf.small[0] }, PAGE);
      expect(spy.mock.calls.some(([text]) => text.includes('CROSS JOIN LATERAL'))).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });
});
