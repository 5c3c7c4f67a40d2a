import { availableParallelism } from 'node:os';
import pg from 'pg';
import request from 'supertest';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { waitFor } from '../support/wait.js';

async function metricValue(t: TestApp, name: string): Promise<number> {
  const { text } = await request(t.app.getHttpServer()).get('/metrics').expect(200);
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
  });
  afterAll(async () => {
    await t.close();
  });

  it('live and ready answer 200 without a token', async () => {
    await request(t.app.getHttpServer()).get('/health/live').expect(200);
    const ready = await request(t.app.getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body.details).toMatchObject({ database: { status: 'up' }, migrations: { status: 'up' } });
  });

  it('ready flips to 503 while the database is unreachable and back to 200 when it returns; the API answers 503', async () => {
    const name = new URL(t.db.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.ORBIT_TEST_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'orbit%'`,
        [name],
      );
      const down = await request(t.app.getHttpServer()).get('/health/ready');
      expect(down.status).toBe(503);
      expect(down.body.error).toMatchObject({ database: { status: 'down' } });
      await request(t.app.getHttpServer()).get('/health/live').expect(200);
      // the API says the database is away (503), not that it broke (500)
      const jobs = await request(t.app.getHttpServer()).get('/jobs').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      expect(jobs.body).toEqual({
        statusCode: 503,
        message: 'The database is unavailable; try again shortly',
        error: 'Service Unavailable',
      });
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await waitFor(
      async () => ((await request(t.app.getHttpServer()).get('/health/ready')).status === 200 ? true : undefined),
      'ready again',
    );
  });
});

describe('readiness of the worker loop', () => {
  it('a node that runs a worker is ready only while its loop passes; an API node has no worker check', async () => {
    const db = await createTestDatabase();
    const api = await createTestApp({ db, asAdmin: false });
    const node = await createTestApp({ db, role: 'all', asAdmin: false });
    try {
      const ready = await waitFor(async () => {
        const res = await request(node.app.getHttpServer()).get('/health/ready');
        return res.status === 200 ? res : undefined;
      }, 'the worker node ready');
      expect(ready.body.details.worker).toEqual({ status: 'up', lastPassMsAgo: expect.any(Number) });
      const apiReady = await request(api.app.getHttpServer()).get('/health/ready').expect(200);
      expect(Object.keys(apiReady.body.details).sort()).toEqual(['database', 'migrations']);
    } finally {
      await node.close();
      await api.close();
      await db.drop();
    }
  });
});

describe('metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('need a token like every endpoint but health', async () => {
    await request(t.app.getHttpServer()).get('/metrics').set('Authorization', 'Bearer nope').expect(401);
  });

  it('move when executions start and finish', async () => {
    const http = () => request(t.app.getHttpServer());
    const before = await metricValue(t, 'orbit_executions_finished_total{status="SUCCEEDED"}');
    const startsBefore = await metricValue(t, 'orbit_queue_delay_seconds_count');
    const job = await http()
      .post('/jobs')
      .send({ name: 'metered', command: 'true', cronExpression: '0 0 1 1 *' })
      .expect(201);
    const { body: execution } = await http().post(`/jobs/${job.body.id}/executions`).expect(201);
    expect(await metricValue(t, 'orbit_executions_queued')).toBe(1);
    await http().post(`/executions/${execution.id}/start`).expect(200);
    expect(await metricValue(t, 'orbit_executions_running')).toBe(1);
    expect(await metricValue(t, 'orbit_queue_delay_seconds_count')).toBe(startsBefore + 1);
    await http().post(`/executions/${execution.id}/succeed`).send({ exitCode: 0 }).expect(200);
    expect(await metricValue(t, 'orbit_executions_finished_total{status="SUCCEEDED"}')).toBe(before + 1);
    expect(await metricValue(t, 'orbit_run_duration_seconds_count{status="SUCCEEDED"}')).toBe(1);
    expect(await metricValue(t, 'orbit_executions_running')).toBe(0);
  });
});

describe('workers and logs', () => {
  let db: TestDatabase;
  let api: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    api = await createTestApp({ db });
  });
  afterAll(async () => {
    await api.close();
    await db.drop();
  });

  it('a worker registers, is listed as alive, and disappears from the list once it stops', async () => {
    const node = await createTestApp({ db, role: 'all' });
    const listed = async () =>
      (await request(api.app.getHttpServer()).get('/workers').expect(200)).body.items as Array<Record<string, unknown>>;
    const [worker] = await listed();
    expect(worker).toMatchObject({
      pid: process.pid,
      concurrency: 4,
      running: 0,
      alive: true,
      cpus: availableParallelism(),
      loadAverage: expect.any(Number),
    });
    expect(worker!.loadAverage as number).toBeGreaterThanOrEqual(0);
    await node.close();
    expect(await listed()).toEqual([]);
  });

  it('each worker says which launcher starts its commands: on GET /workers, and on its node’s /metrics only', async () => {
    const nodes = await Promise.all(
      (['native', 'node'] as const).map(async (kind) => {
        const node = await createTestApp({ db, role: 'worker', env: { ORBIT_LAUNCHER: kind } });
        return { kind, node, id: node.app.get(WorkerService).id };
      }),
    );
    const launcherLines = async (t: TestApp) =>
      (await request(t.app.getHttpServer()).get('/metrics').expect(200)).text
        .split('\n')
        .filter((line) => line.startsWith('orbit_launcher_info'));
    try {
      const { items } = (await request(api.app.getHttpServer()).get('/workers').expect(200)).body as {
        items: Array<{ id: string; launcher: string }>;
      };
      for (const { kind, node, id } of nodes) {
        expect(items.find((w) => w.id === id)).toMatchObject({ launcher: kind });
        expect(await launcherLines(node)).toEqual([`orbit_launcher_info{kind="${kind}"} 1`]);
      }
      expect(await launcherLines(api)).toEqual([]);
    } finally {
      await Promise.all(nodes.map(({ node }) => node.close()));
    }
  });
});
