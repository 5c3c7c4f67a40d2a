import request from 'supertest';
import { HELD_BETWEEN } from '../../src/executions/infrastructure/sql-running-executions.js';
import { expectErrorBody } from '../support/error-body.js';
import { createJob } from '../support/jobs.js';
import { planCost } from '../support/plan-cost.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const at = (time: string) => new Date(`2026-01-05T${time}:00Z`);
const FROM = '2026-01-05T10:30:00Z';
const TO = '2026-01-05T11:30:00Z';

/** GET /workers/:id/runs: what a worker ran in a window (its lane on the Workers page). */
describe("a worker's runs in a window", () => {
  let t: TestApp;
  let jobId: string;
  const http = () => request(t.app.getHttpServer());
  const lane = (worker: string, query: Record<string, string>) =>
    http()
      .get(`/workers/${encodeURIComponent(worker)}/runs`)
      .query(query);

  /** A run of the job on `worker` by SQL, as a worker leaves it: started, and ended unless RUNNING. */
  async function ran(worker: string, status: string, started: Date, finished: Date | null): Promise<string> {
    const { rows } = await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code, error_message, worker_id)
       VALUES (gen_random_uuid(), $1, 'true', 0, 60, $2, 1, 'MANUAL', $3, $3, $3, $4,
               CASE $2 WHEN 'SUCCEEDED' THEN 0 WHEN 'FAILED' THEN 1 END, CASE WHEN $2 = 'FAILED' THEN 'exit code 1' END,
               $5)
       RETURNING id`,
      [jobId, status, started, finished, worker],
    );
    return (rows[0] as { id: string }).id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    jobId = (await createJob(t, { name: 'lane-job' })).id;
  });

  afterAll(() => t?.close());

  it('answers the runs that overlap the window, running or finished, by start, each with its job', async () => {
    await ran('w-1', 'SUCCEEDED', at('10:00'), at('10:05')); // ended before the window
    const running = await ran('w-1', 'RUNNING', at('10:10'), null);
    const across = await ran('w-1', 'SUCCEEDED', at('10:20'), at('10:40'));
    const failed = await ran('w-1', 'FAILED', at('11:00'), at('11:01'));
    await ran('w-1', 'SUCCEEDED', at('11:40'), at('11:41')); // started after it
    await ran('w-2', 'SUCCEEDED', at('11:00'), at('11:01')); // another worker's

    const res = await lane('w-1', { from: FROM, to: TO }).expect(200);
    expect(res.body).toEqual({
      workerId: 'w-1',
      from: '2026-01-05T10:30:00.000Z',
      to: '2026-01-05T11:30:00.000Z',
      items: [
        {
          id: running,
          jobId,
          jobName: 'lane-job',
          status: 'RUNNING',
          startedAt: at('10:10').toISOString(),
          finishedAt: null,
        },
        {
          id: across,
          jobId,
          jobName: 'lane-job',
          status: 'SUCCEEDED',
          startedAt: at('10:20').toISOString(),
          finishedAt: at('10:40').toISOString(),
        },
        {
          id: failed,
          jobId,
          jobName: 'lane-job',
          status: 'FAILED',
          startedAt: at('11:00').toISOString(),
          finishedAt: at('11:01').toISOString(),
        },
      ],
      truncated: false,
    });

    const first = await lane('w-1', { from: FROM, to: TO, limit: '2' }).expect(200);
    expect(first.body).toMatchObject({ items: [{ id: running }, { id: across }], truncated: true });
    expect((await lane('nobody', { from: FROM, to: TO }).expect(200)).body).toMatchObject({ items: [] });
  });

  it.each([
    [{ to: TO }, 'from', /from is required/],
    [{ from: FROM, to: '2026-01-05T11:30:00' }, 'to', /to must be an ISO 8601 instant/],
    [{ from: FROM, to: TO, limit: '0' }, 'limit', /limit must not be less than 1/],
    [{ from: TO, to: FROM }, 'from', /^from must be before to$/],
    [{ from: '2026-01-04T11:29:59Z', to: TO }, 'to', /^to may be at most 24 hours after from$/],
  ])('%j is refused with a 400 naming %s', async (query, field, message) => {
    const res = await lane('w-1', query as Record<string, string>).expect(400);
    expectErrorBody(res.body, 400, 'Bad Request', expect.stringMatching(message));
    expect(res.body).toMatchObject({ field });
  });

  it('every field that is wrong is named at once', async () => {
    const res = await lane('w-1', { from: 'yesterday', to: 'today', limit: 'many' }).expect(400);
    expect(new Set((res.body.errors as { field: string }[]).map((error) => error.field))).toEqual(
      new Set(['from', 'to', 'limit']),
    );
  });

  it("reads a worker's hour by block ranges, past or present, however long the history", async () => {
    // a long history on a busy worker and on others: ten runs a minute for two weeks, each entering
    // the history as it ends, as a day of the history holds them
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code, worker_id)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', s, s, s, s + interval '20 seconds', 0,
              'busy-' || (n % 4)
         FROM generate_series(1, 200000) AS n, LATERAL (SELECT $2::timestamptz - n * interval '6 seconds' AS s) AS start
        ORDER BY s`,
      [jobId, at('11:30')],
    );
    // as autovacuum does once the history has grown past a range (the index's autosummarize)
    await t.db.sql('VACUUM ANALYZE executions_history');
    const { rows: pages } = await t.db.sql(
      `SELECT sum(pg_relation_size(inhrelid))::int / 8192 AS pages FROM pg_inherits WHERE inhparent = 'executions_history'::regclass`,
    );
    const week = 7 * 24 * 3600_000;
    for (const [from, to] of [
      [at('10:30'), at('11:30')],
      [new Date(at('10:30').getTime() - week), new Date(at('11:30').getTime() - week)],
    ]) {
      const params = ['busy-1', from, to, 501];
      const cost = await planCost(t.db.sql.bind(t.db), HELD_BETWEEN, params);
      // a quarter of the runs that end after the window's start and start before its end (603 of them) are its own
      expect(cost.rows).toBe(151);
      // the hour's 600 runs fill about 15 pages: a few ranges of 128 pages are read, of the history's 4,400
      expect(cost.buffers).toBeLessThan(600);
      expect(pages[0].pages).toBeGreaterThan(7 * 600);
    }
  });
});
