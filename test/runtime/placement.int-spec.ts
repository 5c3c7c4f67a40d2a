import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { PlacementSweep } from '../../src/runtime/application/placement-sweep.js';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { TransactionRunner } from '../../src/shared/application/transaction-runner.js';
import type { Schema } from '../support/api-types.js';
import { jobBody, jobCreator } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { waitFor } from '../support/wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows, and the bodies sent wrong on purpose, are loosely typed
type Body = Record<string, any>;
type ExecutionJson = Schema<'ExecutionResponse'>;

const workDir = join(tmpdir(), `orbit-placement-test-${process.pid}`);
const FAST = {
  ORBIT_WORK_DIR: workDir,
  ORBIT_POLL_INTERVAL_MS: '200',
  ORBIT_HEARTBEAT_SECONDS: '1',
  ORBIT_LEASE_SECONDS: '3',
  ORBIT_SHUTDOWN_GRACE_SECONDS: '0',
};

describe('placement: labels, selectors, runOn, limits, priority, drain', () => {
  let db: TestDatabase;
  let api: TestApp;
  const nodes: TestApp[] = [];
  const http = () => request(api.app.getHttpServer());

  /** A node with a worker (and the scheduler and sweeps), on the shared database. */
  async function worker(labels: string, concurrency = 8): Promise<{ app: TestApp; id: string }> {
    const app = await createTestApp({
      db,
      role: 'worker',
      env: { ...FAST, ORBIT_WORKER_LABELS: labels, ORBIT_WORKER_CONCURRENCY: String(concurrency) },
    });
    nodes.push(app);
    return { app, id: app.app.get(WorkerService).id };
  }

  async function stop(node: { app: TestApp }): Promise<void> {
    nodes.splice(nodes.indexOf(node.app), 1);
    await node.app.close();
  }

  const newJob = jobCreator(() => api, { command: 'true', enabled: false });

  async function queue(jobId: string, count: number): Promise<void> {
    await Promise.all(Array.from({ length: count }, () => http().post(`/jobs/${jobId}/executions`).expect(201)));
  }

  async function rows(jobId: string): Promise<Body[]> {
    return (await db.sql(`SELECT * FROM executions WHERE job_id = $1 ORDER BY created_at, id`, [jobId])).rows as Body[];
  }

  async function finished(jobId: string, count: number, timeoutMs = 30_000): Promise<Body[]> {
    return waitFor(
      async () => {
        const all = await rows(jobId);
        return all.length >= count && all.every((row) => ['SUCCEEDED', 'FAILED'].includes(row.status as string))
          ? all
          : undefined;
      },
      `${count} runs of job ${jobId} to finish`,
      timeoutMs,
      100,
    );
  }

  /** Counts RUNNING rows matching `where` every 50 ms until `done` resolves; answers the most seen. */
  async function peakRunning(where: string, params: unknown[], done: Promise<unknown>): Promise<number> {
    let peak = 0;
    let over = false;
    void done.finally(() => (over = true));
    while (!over) {
      const { rows } = await db.sql(
        `SELECT count(*)::int AS n FROM executions WHERE status = 'RUNNING' AND ${where}`,
        params,
      );
      peak = Math.max(peak, rows[0].n as number);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await done;
    return peak;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await createTestApp({ db, env: FAST });
  });
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((node) => node.close()));
    await db.sql(`UPDATE executions SET status = 'CANCELLED', finished_at = now() WHERE status = 'QUEUED'`);
  });
  afterAll(async () => {
    await api.close();
    await db.drop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('GET /workers shows each worker with its labels, host included, and draining false', async () => {
    const eu = await worker('region=eu,gpu=true');
    const { body } = await http().get('/workers').expect(200);
    const listed = (body as Schema<'WorkerListResponse'>).items.find((w) => w.id === eu.id);
    expect(listed).toMatchObject({ labels: { gpu: 'true', region: 'eu', host: expect.any(String) }, draining: false });
  });

  it('100 runs with a selector run on the matching worker only; a run for nobody waits, says why, and a later worker runs it', async () => {
    const eu = await worker('region=eu');
    const us = await worker('region=us');
    const euJob = await newJob({ workerSelector: { region: 'eu' } });
    const usJob = await newJob({ workerSelector: { region: 'us' } });
    await Promise.all([queue(euJob.id, 100), queue(usJob.id, 20)]);
    const [euRuns, usRuns] = await Promise.all([finished(euJob.id, 100), finished(usJob.id, 20)]);
    expect(new Set(euRuns.map((row) => row.worker_id))).toEqual(new Set([eu.id]));
    expect(new Set(usRuns.map((row) => row.worker_id))).toEqual(new Set([us.id]));

    const gpuJob = await newJob({ workerSelector: { gpu: 'true', region: 'eu' } });
    const queued = (await http().post(`/jobs/${gpuJob.id}/executions`).expect(201)).body as ExecutionJson;
    expect(queued).toMatchObject({ workerSelector: { gpu: 'true', region: 'eu' }, status: 'QUEUED' });
    await eu.app.app.get(PlacementSweep).sweep();
    const waiting = (await http().get(`/executions/${queued.id}`).expect(200)).body as ExecutionJson;
    expect(waiting).toMatchObject({ status: 'QUEUED', waitingFor: 'no live worker has gpu=true, region=eu' });
    const metrics = await http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^orbit_executions_unroutable 1$/m);

    const gpu = await worker('region=eu,gpu=true');
    const [ran] = await finished(gpuJob.id, 1);
    expect(ran).toMatchObject({ status: 'SUCCEEDED', worker_id: gpu.id, waiting_for: null });
  });

  it('maxConcurrent 2: ten `sleep 1` across two workers never have more than 2 RUNNING, and all finish', async () => {
    await worker('side=a');
    await worker('side=b');
    const limited = await newJob({ command: 'sleep 1', maxConcurrent: 2 });
    await queue(limited.id, 10);
    const peak = await peakRunning('job_id = $1', [limited.id], finished(limited.id, 10, 40_000));
    expect(peak).toBe(2);
    expect((await rows(limited.id)).every((row) => row.status === 'SUCCEEDED')).toBe(true);
  });

  it('a group of limit 3 holds across three jobs and two workers', async () => {
    await worker('side=a');
    await worker('side=b');
    await http().post('/concurrency-groups').send({ name: 'db-heavy', limit: 3 }).expect(201);
    const grouped = await Promise.all(
      [1, 2, 3].map(() => newJob({ command: 'sleep 1', concurrencyGroup: 'db-heavy' })),
    );
    await Promise.all(grouped.map((j) => queue(j.id, 4)));
    const ids = grouped.map((j) => j.id);
    const done = Promise.all(ids.map((id) => finished(id, 4, 40_000)));
    const peak = await peakRunning('job_id = ANY($1::uuid[])', [ids], done);
    expect(peak).toBe(3);
  });

  describe('the claim, on the repository', () => {
    const claimant = { id: 'claimant', labels: { host: 'x' } };
    async function insert(fields: Partial<Parameters<typeof Execution.create>[0]>, dueAt: Date, jobId: string) {
      const execution = Execution.create(
        { jobId, command: 'true', maxRetries: 0, timeoutSeconds: 60, ...fields },
        dueAt,
        { dueAt },
      );
      await api.app.get(ExecutionRepository).insert(execution);
      return execution;
    }
    const claim = (limit: number) =>
      api.app.get(TransactionRunner).run(async () => {
        const due = await api.app.get(ExecutionRepository).lockDue(new Date(), limit, claimant);
        return due.map((e) => e.id);
      });

    it('takes higher priority first, then the oldest due', async () => {
      const j = await newJob();
      const t = Date.now() - 60_000;
      const oldLow = await insert({ priority: -5 }, new Date(t), j.id);
      const newHigh = await insert({ priority: 50 }, new Date(t + 3000), j.id);
      const oldNormal = await insert({}, new Date(t + 1000), j.id);
      const newNormal = await insert({}, new Date(t + 2000), j.id);
      expect(await claim(10)).toEqual([newHigh.id, oldNormal.id, newNormal.id, oldLow.id]);
    });

    it('the oldest runs held by a full limit do not stall a newer run', async () => {
      const j = await newJob({ maxConcurrent: 1 });
      const free = await newJob();
      const t = Date.now() - 60_000;
      const held = [];
      for (let i = 0; i < 5; i++) held.push(await insert({ maxConcurrent: 1 }, new Date(t + i), j.id));
      await db.sql(`UPDATE executions SET status = 'RUNNING', started_at = now() WHERE id = $1`, [held[0]!.id]);
      const newer = await insert({}, new Date(t + 1000), free.id);
      expect(await claim(1)).toEqual([newer.id]);
      await db.sql(`UPDATE executions SET status = 'SUCCEEDED', exit_code = 0, finished_at = now() WHERE id = $1`, [
        held[0]!.id,
      ]);
      // the lane has one free place: one of its runs, in order, beside the unlimited one
      expect(await claim(3)).toEqual([held[1]!.id, newer.id]);
    });
  });

  it('drain: no new claim after it, the running command finishes, resume claims again', async () => {
    const node = await worker('side=a');
    const slow = await newJob({ command: 'sleep 1' });
    await http().post(`/jobs/${slow.id}/executions`).expect(201);
    await waitFor(async () => ((await rows(slow.id))[0]?.status === 'RUNNING' ? true : undefined), 'the run to start');
    const drained = await http()
      .post(`/workers/${encodeURIComponent(node.id)}/drain`)
      .expect(200);
    expect(drained.body).toMatchObject({ id: node.id, draining: true });
    const quick = await newJob();
    await queue(quick.id, 3);
    await waitFor(async () => ((await rows(slow.id))[0]?.status === 'SUCCEEDED' ? true : undefined), 'the run to end');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await rows(quick.id)).map((row) => row.status)).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);
    expect(
      ((await http().get('/workers').expect(200)).body as Schema<'WorkerListResponse'>).items.find(
        (w) => w.id === node.id,
      ),
    ).toMatchObject({
      draining: true,
    });
    await http()
      .post(`/workers/${encodeURIComponent(node.id)}/resume`)
      .expect(200);
    expect((await finished(quick.id, 3)).map((row) => row.worker_id)).toEqual([node.id, node.id, node.id]);
    const audit = await http().get('/audit?limit=10').expect(200);
    expect((audit.body as Schema<'AuditPageResponse'>).items.map((e) => e.action)).toEqual(
      expect.arrayContaining(['worker.drained', 'worker.resumed']),
    );
    await http().post('/workers/nobody/drain').expect(404);
  });

  it('runOn all: one run per live worker, each pinned; a pinned run whose worker stops fails naming it', async () => {
    const three = [await worker('fleet=web'), await worker('fleet=web'), await worker('fleet=web')];
    const everywhere = await newJob({ runOn: 'all', workerSelector: { fleet: 'web' } });
    await http().post(`/jobs/${everywhere.id}/executions`).expect(201);
    const runs = await finished(everywhere.id, 3);
    expect(runs).toHaveLength(3);
    expect(runs.map((row) => row.worker_id).sort()).toEqual(three.map((w) => w.id).sort());
    expect(runs.every((row) => row.pinned_worker === row.worker_id)).toBe(true);

    // a worker of concurrency 1, busy: the run pinned to it waits, and then the worker goes
    const busy = await worker('fleet=batch', 1);
    const blocker = await newJob({ command: 'sleep 30', workerSelector: { fleet: 'batch' } });
    await http().post(`/jobs/${blocker.id}/executions`).expect(201);
    await waitFor(async () => ((await rows(blocker.id))[0]?.status === 'RUNNING' ? true : undefined), 'the blocker');
    const pinned = await newJob({ runOn: 'all', workerSelector: { fleet: 'batch' }, maxRetries: 3 });
    await http().post(`/jobs/${pinned.id}/executions`).expect(201);
    await stop(busy);
    const other = await worker('fleet=web');
    await other.app.app.get(PlacementSweep).sweep();
    // the sweep skips a row another node's sweep holds: that one fails it, and commits a moment later
    await waitFor(async () => ((await rows(pinned.id))[0]?.status === 'FAILED' ? true : undefined), 'the pinned run');
    const [failed, ...retries] = await rows(pinned.id);
    expect(failed).toMatchObject({
      status: 'FAILED',
      pinned_worker: busy.id,
      error_message: `Worker ${busy.id} is gone: a run pinned to it runs nowhere else`,
    });
    expect(retries).toEqual([]);
  });

  it('a job refuses an unknown group, both limits at once, and a bad selector, naming the field', async () => {
    const refused = async (fields: Body, message: string) => {
      const { body } = await http()
        .post('/jobs')
        .send({ ...jobBody({ command: 'true' }), ...fields })
        .expect(400);
      expect(body.message).toContain(message);
    };
    await refused({ concurrencyGroup: 'nope' }, "the team default has no concurrency group named 'nope'");
    await refused({ maxConcurrent: 2, concurrencyGroup: 'x' }, 'cannot both be set');
    await refused({ workerSelector: { region: 'e u' } }, 'workerSelector.region must be a label value');
    await refused({ priority: 101 }, 'priority must be an integer from -100 to 100');
    await refused({ maxConcurrent: 0 }, 'maxConcurrent must be null or an integer from 1 to 10000');
    await refused({ runOn: 'some' }, 'runOn');
  });

  it('concurrency groups: create, list, change, and no delete while a job names one', async () => {
    const group: Schema<'CreateConcurrencyGroupDto'> = { name: 'nightly', limit: 2 };
    const created = (await http().post('/concurrency-groups').send(group).expect(201))
      .body as Schema<'ConcurrencyGroupResponse'>;
    await http().post('/concurrency-groups').send(group).expect(409);
    await http().post('/concurrency-groups').send({ name: 'bad', limit: 0 }).expect(400);
    const named = await newJob({ concurrencyGroup: 'nightly' });
    const listed = (
      (await http().get('/concurrency-groups').expect(200)).body as Schema<'ConcurrencyGroupListResponse'>
    ).items;
    expect(listed.map((g) => g.name)).toContain('nightly');
    expect((await http().patch(`/concurrency-groups/${created.id}`).send({ limit: 5 }).expect(200)).body.limit).toBe(5);
    const refused = await http().delete(`/concurrency-groups/${created.id}`).expect(409);
    expect(refused.body.message).toContain(named.name);
    await http().delete(`/jobs/${named.id}`).expect(204);
    await http().delete(`/concurrency-groups/${created.id}`).expect(204);
  });
});
