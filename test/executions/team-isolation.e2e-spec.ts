import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { expectErrorBody } from '../support/error-body.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

type Execution = Schema<'ExecutionResponse'>;
type Overview = Schema<'OverviewResponse'>;
type Activity = Schema<'ActivityResponse'>;
type Worker = Schema<'WorkerResponse'>;
type Lane = Schema<'WorkerRunsResponse'>;
type Team = 'payments' | 'search';

const TEAMS: Team[] = ['payments', 'search'];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** Every half hour: due within the Overview's next 24 hours (an API node has no scheduler to fire it). */
const HALF_HOURLY = '*/30 * * * *';
const WORKER = `host-shared:1:${randomUUID().slice(0, 6)}`;

/** What each team has: a job with runs in every state, some on a worker both teams' runs share. */
interface Fixture {
  job: Schema<'JobResponse'>;
  failed: string[];
  queued: string[];
  running: string;
  succeeded: string;
  viewer: string;
  operator: string;
}

/** The runs each team makes (search has one failure in a row more and two queued runs fewer, so a mix-up shows). */
const MADE: Record<Team, { failed: number; queued: number }> = {
  payments: { failed: 3, queued: 3 },
  search: { failed: 4, queued: 1 },
};

/**
 * Runs belong to their job's team: a team-bound token reaches the runs of its teams only, and
 * every list, count and chart about runs (executions, overview, workers) leaves the others out.
 */
describe("runs are kept to their job's team", () => {
  let t: TestApp;
  const fx = {} as Record<Team, Fixture>;
  const http = () => request(t.app.getHttpServer());
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const get = (path: string, token = TEST_ADMIN_TOKEN) => http().get(path).set(bearer(token));
  const post = (path: string, body: object, token = TEST_ADMIN_TOKEN) =>
    http().post(path).set(bearer(token)).send(body);
  const other = (team: Team): Team => (team === 'payments' ? 'search' : 'payments');
  /** Every id and the name that belong to a team: none may be in an answer to the other team. */
  const secrets = (team: Team) => {
    const { job, failed, queued, running, succeeded } = fx[team];
    return [job.name, job.id, ...failed, ...queued, running, succeeded];
  };
  const expectNoneOf = (text: string, team: Team) => {
    for (const secret of secrets(team))
      expect({ secret, leaked: text.includes(secret) }).toEqual({ secret, leaked: false });
  };
  const expectAllOf = (text: string, team: Team, which: string[] = secrets(team)) => {
    for (const secret of which) expect({ secret, shown: text.includes(secret) }).toEqual({ secret, shown: true });
  };

  /** A run of `jobId` on the shared worker, stored as a worker leaves it: running, or ended a moment ago. */
  async function onWorker(jobId: string, status: 'RUNNING' | 'SUCCEEDED'): Promise<string> {
    const { rows } = await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
         created_at, started_at, finished_at, exit_code, worker_id)
       VALUES (gen_random_uuid(), $1, 'true', 0, 60, $2, 1, 'MANUAL', now() - interval '2 minutes',
               now() - interval '2 minutes', now() - interval '1 minute',
               CASE WHEN $2 = 'SUCCEEDED' THEN now() - interval '10 seconds' END,
               CASE WHEN $2 = 'SUCCEEDED' THEN 0 END, $3)
       RETURNING id`,
      [jobId, status, WORKER],
    );
    return (rows[0] as { id: string }).id;
  }

  async function token(team: Team, role: 'viewer' | 'operator'): Promise<string> {
    const res = await post('/tokens', { name: `${team}-${role}`, role, team }).expect(201);
    return (res.body as Schema<'CreatedTokenResponse'>).token;
  }

  async function trigger(jobId: string): Promise<string> {
    return ((await post(`/jobs/${jobId}/executions`, {}).expect(201)).body as Execution).id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    await t.db.sql(
      `INSERT INTO workers (id, host, pid, version, concurrency, started_at, last_heartbeat_at)
       VALUES ($1, 'host-shared', 1, '0', 4, now(), now())`,
      [WORKER],
    );
    for (const team of TEAMS) {
      await post('/teams', { name: team }).expect(201);
      const job = await createJob(t, { name: `${team}-job-${randomUUID()}`, team, cronExpression: HALF_HOURLY });
      const failed: string[] = [];
      for (let i = 0; i < MADE[team].failed; i++) {
        const id = await trigger(job.id);
        await post(`/executions/${id}/start`, {}).expect(200);
        await post(`/executions/${id}/fail`, { exitCode: 1, errorMessage: 'broken' }).expect(200);
        failed.push(id);
      }
      const queued: string[] = [];
      for (let i = 0; i < MADE[team].queued; i++) queued.push(await trigger(job.id));
      fx[team] = {
        job,
        failed,
        queued,
        running: await onWorker(job.id, 'RUNNING'),
        succeeded: await onWorker(job.id, 'SUCCEEDED'),
        viewer: await token(team, 'viewer'),
        operator: await token(team, 'operator'),
      };
    }
  });

  afterAll(() => t?.close());

  it("answers another team's run on every executions/:id route as it answers an unknown id", async () => {
    const routes: [string, (id: string) => string, object | undefined][] = [
      ['GET', (id) => `/executions/${id}`, undefined],
      ['GET', (id) => `/executions/${id}/cancellation`, undefined],
      ['GET', (id) => `/executions/${id}/output`, undefined],
      ['GET', (id) => `/executions/${id}/output/stream`, undefined],
      ['POST', (id) => `/executions/${id}/start`, {}],
      ['POST', (id) => `/executions/${id}/succeed`, { exitCode: 0 }],
      ['POST', (id) => `/executions/${id}/fail`, { exitCode: 1, errorMessage: 'forged' }],
      ['POST', (id) => `/executions/${id}/cancel`, {}],
    ];
    for (const team of TEAMS) {
      const foreign = fx[other(team)];
      for (const [method, path, body] of routes) {
        for (const id of [foreign.queued[0]!, foreign.running, foreign.failed[0]!]) {
          const send = (target: string) =>
            method === 'GET' ? get(path(target), fx[team].operator) : post(path(target), body!, fx[team].operator);
          const [unknown, answered] = [await send(UNKNOWN_ID), await send(id)];
          const route = `${method} ${path(':id')}`;
          expect({ route, status: answered.status }).toEqual({ route, status: 404 });
          expectErrorBody(answered.body, 404, 'Not Found', `Execution ${id} not found`);
          expect({ route, body: JSON.parse(answered.text.replaceAll(id, ':id')) as unknown }).toEqual({
            route,
            body: JSON.parse(unknown.text.replaceAll(UNKNOWN_ID, ':id')) as unknown,
          });
        }
      }
    }
    // nothing of the other team's changed
    for (const team of TEAMS) {
      const { queued, running } = fx[team];
      expect((await get(`/executions/${queued[0]}`).expect(200)).body).toMatchObject({ status: 'QUEUED' });
      expect((await get(`/executions/${running}`).expect(200)).body).toMatchObject({ status: 'RUNNING' });
    }
  });

  it("answers another team's job as an unknown one when asked to run or backfill it", async () => {
    const window = { from: '2026-01-01T00:00:00Z', to: '2026-01-01T01:00:00Z' };
    for (const team of TEAMS) {
      const foreign = fx[other(team)].job.id;
      for (const [path, body] of [
        [(id: string) => `/jobs/${id}/executions`, {}],
        [(id: string) => `/jobs/${id}/backfill`, window],
      ] as const) {
        const [unknown, answered] = [
          await post(path(UNKNOWN_ID), body, fx[team].operator),
          await post(path(foreign), body, fx[team].operator),
        ];
        expect(answered.status).toBe(404);
        expect(JSON.parse(answered.text.replaceAll(foreign, ':id'))).toEqual(
          JSON.parse(unknown.text.replaceAll(UNKNOWN_ID, ':id')),
        );
      }
    }
    expect((await get(`/executions?jobId=${fx.search.job.id}`).expect(200)).body.items).toHaveLength(
      MADE.search.failed + MADE.search.queued + 2,
    );
  });

  it("reads its own team's runs", async () => {
    for (const team of TEAMS) {
      const { viewer, queued, succeeded } = fx[team];
      expect((await get(`/executions/${queued[0]}`, viewer).expect(200)).body).toMatchObject({ id: queued[0] });
      expect((await get(`/executions/${succeeded}/output`, viewer).expect(200)).body).toEqual({
        stdout: '',
        stderr: '',
        truncated: false,
      });
    }
  });

  it("GET /executions lists its team's runs only, and the admin sees every team's", async () => {
    const ids = async (path: string, token: string) =>
      ((await get(path, token).expect(200)).body as Schema<'ExecutionPageResponse'>).items.map((e) => e.id).sort();
    const runsOf = (team: Team) => secrets(team).slice(2).sort();
    for (const team of TEAMS) {
      const res = await get('/executions?limit=100', fx[team].viewer).expect(200);
      expectNoneOf(res.text, other(team));
      expect(await ids('/executions?limit=100', fx[team].viewer)).toEqual(runsOf(team));
      // a page at a time: the pages hold them all, newest first, and the cursor keeps to the team
      const first = (await get('/executions?limit=3', fx[team].viewer).expect(200))
        .body as Schema<'ExecutionPageResponse'>;
      const rest = (await get(`/executions?limit=100&cursor=${first.nextCursor}`, fx[team].viewer).expect(200))
        .body as Schema<'ExecutionPageResponse'>;
      expect([...first.items, ...rest.items].map((e) => e.id).sort()).toEqual(runsOf(team));
      // other filters keep to the team too
      expect(await ids(`/executions?jobId=${fx[other(team)].job.id}`, fx[team].viewer)).toEqual([]);
      expect(await ids('/executions?status=RUNNING', fx[team].viewer)).toEqual([fx[team].running]);
      // team names one of theirs, or nothing
      expect(await ids(`/executions?team=${team}&limit=100`, fx[team].viewer)).toEqual(runsOf(team));
      expect(await ids(`/executions?team=${other(team)}`, fx[team].viewer)).toEqual([]);
    }
    const all = await get('/executions?limit=100').expect(200);
    for (const team of TEAMS) expectAllOf(all.text, team, secrets(team).slice(1));
    expect(await ids('/executions?team=search&limit=100', TEST_ADMIN_TOKEN)).toEqual(runsOf('search'));
  });

  it("GET /overview counts, lists and names its team's jobs and runs only", async () => {
    const expected = (teams: Team[]) => {
      const sum = (of: (team: Team) => number) => teams.reduce((n, team) => n + of(team), 0);
      return {
        lastWindow: {
          QUEUED: sum((team) => MADE[team].queued),
          RUNNING: teams.length,
          SUCCEEDED: teams.length,
          FAILED: sum((team) => MADE[team].failed),
          CANCELLED: 0,
        },
        now: expect.objectContaining({ queued: sum((team) => MADE[team].queued), running: teams.length, late: 0 }),
        due: {
          jobs: teams.length,
          atLeast: false,
          next: expect.arrayContaining(teams.map((team) => expect.objectContaining({ jobId: fx[team].job.id }))),
        },
        failingRepeatedly: [...teams]
          .sort((a, b) => MADE[b].failed - MADE[a].failed)
          .map((team) => expect.objectContaining({ jobId: fx[team].job.id, failuresInRow: MADE[team].failed })),
      };
    };
    for (const team of TEAMS) {
      const res = await get('/overview', fx[team].viewer).expect(200);
      expectNoneOf(res.text, other(team));
      expectAllOf(res.text, team, [fx[team].job.name, fx[team].job.id]);
      expect(res.body as Overview).toMatchObject(expected([team]));
      expect((await get(`/overview?team=${team}`, fx[team].viewer).expect(200)).body).toMatchObject(expected([team]));
      const foreign = await get(`/overview?team=${other(team)}`, fx[team].viewer).expect(200);
      expectNoneOf(foreign.text, other(team));
      expect(foreign.body).toMatchObject({ lastWindow: { QUEUED: 0, FAILED: 0 }, due: { jobs: 0, next: [] } });
    }
    const all = await get('/overview').expect(200);
    expect(all.body as Overview).toMatchObject(expected(TEAMS));
    expect((await get('/overview?team=search').expect(200)).body).toMatchObject(expected(['search']));
  });

  it('GET /overview/activity charts its team’s runs only', async () => {
    const charted = (activity: Activity) => ({
      created: activity.outcomes.reduce(
        (sums, bucket) => {
          for (const [status, n] of Object.entries(bucket.runs)) sums[status] = (sums[status] ?? 0) + n;
          return sums;
        },
        {} as Record<string, number>,
      ),
      last: { queued: activity.levels.at(-1)!.queued, running: activity.levels.at(-1)!.running },
    });
    const expected = (teams: Team[]) => {
      const sum = (of: (team: Team) => number) => teams.reduce((n, team) => n + of(team), 0);
      return {
        created: {
          QUEUED: sum((team) => MADE[team].queued),
          RUNNING: teams.length,
          SUCCEEDED: teams.length,
          FAILED: sum((team) => MADE[team].failed),
          CANCELLED: 0,
        },
        last: { queued: sum((team) => MADE[team].queued), running: teams.length },
      };
    };
    for (const team of TEAMS) {
      for (const window of ['hour', 'day']) {
        const res = await get(`/overview/activity?window=${window}`, fx[team].viewer).expect(200);
        expectNoneOf(res.text, other(team));
        expect(charted(res.body as Activity)).toEqual(expected([team]));
      }
      const foreign = await get(`/overview/activity?team=${other(team)}`, fx[team].viewer).expect(200);
      expect(charted(foreign.body as Activity)).toEqual({
        created: { QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 },
        last: { queued: 0, running: 0 },
      });
    }
    expect(charted((await get('/overview/activity').expect(200)).body as Activity)).toEqual(expected(TEAMS));
    expect(charted((await get('/overview/activity?team=payments').expect(200)).body as Activity)).toEqual(
      expected(['payments']),
    );
  });

  it('GET /workers lists every worker, with the runs of its team only', async () => {
    const held = (team: Team) => ({
      id: fx[team].running,
      jobId: fx[team].job.id,
      jobName: fx[team].job.name,
      startedAt: expect.any(String),
    });
    const shared = (res: request.Response) =>
      (res.body as { items: Worker[] }).items.find((worker) => worker.id === WORKER);
    for (const team of TEAMS) {
      const res = await get('/workers', fx[team].viewer).expect(200);
      expectNoneOf(res.text, other(team));
      expect(shared(res)?.executions).toEqual([held(team)]);
    }
    const all = await get('/workers').expect(200);
    expect(shared(all)?.executions).toEqual(expect.arrayContaining(TEAMS.map(held)));
    expect(shared(all)?.executions).toHaveLength(2);
  });

  it("GET /workers/:id/runs shows a worker's runs of its team only", async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const lane = (token: string, limit = 100) =>
      get(`/workers/${encodeURIComponent(WORKER)}/runs?from=${from}&to=${to}&limit=${limit}`, token).expect(200);
    for (const team of TEAMS) {
      const res = await lane(fx[team].viewer);
      expectNoneOf(res.text, other(team));
      const { items, truncated } = res.body as Lane;
      expect({ ids: items.map((run) => run.id).sort(), truncated }).toEqual({
        ids: [fx[team].running, fx[team].succeeded].sort(),
        truncated: false,
      });
      expect(items.every((run) => run.jobName === fx[team].job.name)).toBe(true);
      // the limit counts the team's runs, not the worker's
      expect((await lane(fx[team].viewer, 2)).body).toMatchObject({ truncated: false });
      expect(((await lane(fx[team].viewer, 1)).body as Lane).items).toHaveLength(1);
    }
    const all = (await lane(TEST_ADMIN_TOKEN)).body as Lane;
    expect(all.items.map((run) => run.id).sort()).toEqual(
      TEAMS.flatMap((team) => [fx[team].running, fx[team].succeeded]).sort(),
    );
  });

  it("an operator cancels their own team's runs, not another team's; a viewer neither", async () => {
    const ownRun = await trigger(fx.payments.job.id);
    const foreignRun = await trigger(fx.search.job.id);

    const refused = await post(`/executions/${foreignRun}/cancel`, {}, fx.payments.operator);
    expectErrorBody(refused.body, 404, 'Not Found', `Execution ${foreignRun} not found`);
    expect((await get(`/executions/${foreignRun}`).expect(200)).body).toMatchObject({ status: 'QUEUED' });

    const byViewer = await post(`/executions/${ownRun}/cancel`, {}, fx.payments.viewer);
    expectErrorBody(byViewer.body, 403, 'Forbidden');
    expect((await post(`/executions/${ownRun}/cancel`, {}, fx.payments.operator).expect(200)).body).toMatchObject({
      id: ownRun,
      status: 'CANCELLED',
    });
    // the other team's operator reaches their own run
    expect((await post(`/executions/${foreignRun}/cancel`, {}, fx.search.operator).expect(200)).body).toMatchObject({
      id: foreignRun,
      status: 'CANCELLED',
    });
    // and the admin any team's
    const another = await trigger(fx.payments.job.id);
    expect((await post(`/executions/${another}/cancel`, {}).expect(200)).body).toMatchObject({ status: 'CANCELLED' });
  });
});
