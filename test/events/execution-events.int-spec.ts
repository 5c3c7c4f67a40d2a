import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { LeaseReaperService } from '../../src/runtime/application/lease-reaper.service.js';
import { jobCreator } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { actionFor, Body, expectedEvents, legalHistories, SQL_SHAPES, storedEvents } from './support.js';

const HISTORIES = legalHistories().map((history) => ({ name: history.join(' → '), history }));
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

const BODIES: Record<string, object> = { succeed: { exitCode: 0 }, fail: { exitCode: 2, errorMessage: 'boom' } };

function helpers(app: () => TestApp) {
  const http = () => request(app().app.getHttpServer());
  return {
    http,
    newJob: jobCreator(app, { command: 'true' }),
    async queue(jobId: string): Promise<Body> {
      return (await http().post(`/jobs/${jobId}/executions`).expect(201)).body as Body;
    },
    async read(id: string): Promise<Body> {
      return (await http().get(`/executions/${id}`).expect(200)).body as Body;
    },
    async executionsOf(jobId: string): Promise<Body[]> {
      const res = await http().get(`/executions?jobId=${jobId}&limit=100`).expect(200);
      return (res.body.items as Body[]).reverse(); // oldest first
    },
  };
}

describe('every status change is one event, whoever writes it (no worker running)', () => {
  let t: TestApp;
  let runtime: TestApp;
  const { http, newJob, queue, read, executionsOf } = helpers(() => t);

  beforeAll(async () => {
    t = await createTestApp();
    runtime = await createTestApp({ db: t.db, role: 'all', init: false });
  });
  afterAll(async () => {
    await runtime?.close();
    await t?.close();
  });

  it.each(HISTORIES)("the API's actions: $name", async ({ history }) => {
    const execution = await queue((await newJob()).id);
    for (let i = 1; i < history.length; i++) {
      const action = actionFor(history[i - 1]!, history[i]!);
      await http()
        .post(`/executions/${execution.id}/${action}`)
        .send(BODIES[action] ?? {})
        .expect(200);
    }
    const final = await read(execution.id);
    expect(final.status).toBe(history[history.length - 1]);
    expect(await storedEvents(t.db, execution.id)).toEqual(expectedEvents(final, history));
  });

  it.each(HISTORIES)('SQL by hand: $name', async ({ history }) => {
    const job = await newJob();
    const id = randomUUID();
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now())`,
      [id, job.id],
    );
    for (const status of history.slice(1)) {
      await t.db.sql(`UPDATE executions SET status = $2, ${SQL_SHAPES[status]} WHERE id = $1`, [id, status]);
    }
    const final = await read(id);
    expect(final.status).toBe(history[history.length - 1]);
    expect(await storedEvents(t.db, id)).toEqual(expectedEvents(final, history));
  });

  it("a job's deletion cancels its queued executions: one CANCELLED event each", async () => {
    const job = await newJob();
    const queued = [await queue(job.id), await queue(job.id)];
    await http().delete(`/jobs/${job.id}`).expect(204);
    for (const execution of queued) {
      const final = await read(execution.id);
      expect(final.status).toBe('CANCELLED');
      expect(await storedEvents(t.db, execution.id)).toEqual(
        expectedEvents(final, [ExecutionStatus.QUEUED, ExecutionStatus.CANCELLED]),
      );
    }
  });

  it("the lease reaper fails a vanished worker's run, and its retry is marked on the failure", async () => {
    const job = await newJob({ maxRetries: 1 });
    const execution = await queue(job.id);
    await t.db.sql(
      `UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'dead-worker',
              lease_expires_at = now() - interval '1 second' WHERE id = $1`,
      [execution.id],
    );
    expect(await runtime.app.get(LeaseReaperService).sweep(new Date(Date.now() + 1000))).toBe(1);
    const final = await read(execution.id);
    expect(final).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Worker lost: lease expired',
      workerId: 'dead-worker',
    });
    const history = [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.FAILED];
    expect(await storedEvents(t.db, execution.id)).toEqual(expectedEvents(final, history, true));
    const [, retry] = await executionsOf(job.id);
    expect(await storedEvents(t.db, retry!.id)).toEqual(expectedEvents(retry!, [ExecutionStatus.QUEUED]));
  });

  it("the lease reaper times out an outside runner's run", async () => {
    const execution = await queue((await newJob({ timeoutSeconds: 1 })).id);
    await http().post(`/executions/${execution.id}/start`).send({}).expect(200);
    expect(await runtime.app.get(LeaseReaperService).sweep(new Date(Date.now() + 2000))).toBe(1);
    const final = await read(execution.id);
    expect(final).toMatchObject({ status: 'FAILED', exitCode: 124, workerId: null });
    const history = [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.FAILED];
    expect(await storedEvents(t.db, execution.id)).toEqual(expectedEvents(final, history));
  });

  it('a failure with a retry left says "will retry"; the last attempt\'s failure says "failed for good"', async () => {
    const job = await newJob({ maxRetries: 1 });
    const first = await queue(job.id);
    const fail = async (id: string) => {
      await http().post(`/executions/${id}/start`).send({}).expect(200);
      await http().post(`/executions/${id}/fail`).send({ exitCode: 1, errorMessage: 'no' }).expect(200);
    };
    await fail(first.id);
    const [, retry] = await executionsOf(job.id);
    expect(retry).toMatchObject({ trigger: 'RETRY', attempt: 2, retryOf: first.id, status: 'QUEUED' });
    await fail(retry!.id);
    expect(await executionsOf(job.id)).toHaveLength(2);

    const failures = await t.db.sql(
      `SELECT execution_id, attempt, trigger, retry_queued FROM events WHERE job_id = $1 AND to_status = 'FAILED' ORDER BY seq`,
      [job.id],
    );
    expect(failures.rows).toEqual([
      { execution_id: first.id, attempt: 1, trigger: 'MANUAL', retry_queued: true },
      { execution_id: retry!.id, attempt: 2, trigger: 'RETRY', retry_queued: false },
    ]);
  });

  it('an UPDATE that leaves the status as it is writes no event (a lease renewal, a version bump)', async () => {
    const execution = await queue((await newJob()).id);
    await http().post(`/executions/${execution.id}/start`).send({}).expect(200);
    await t.db.sql(
      `UPDATE executions SET lease_expires_at = now() + interval '1 minute', version = version + 1 WHERE id = $1`,
      [execution.id],
    );
    await t.db.sql(`UPDATE executions SET status = status, worker_id = 'w' WHERE id = $1`, [execution.id]);
    expect((await storedEvents(t.db, execution.id)).map((e) => e.type)).toEqual([
      'execution.queued',
      'execution.running',
    ]);
  });

  it("an event is part of its change's transaction: unseen while it is open, gone with a rollback", async () => {
    const execution = await queue((await newJob()).id);
    const writer = new pg.Client({ connectionString: t.db.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`UPDATE executions SET status = 'CANCELLED', finished_at = now() WHERE id = $1`, [
        execution.id,
      ]);
      expect((await storedEvents(t.db, execution.id)).map((e) => e.to)).toEqual(['QUEUED']);
      await writer.query('ROLLBACK');
    } finally {
      await writer.end();
    }
    expect((await storedEvents(t.db, execution.id)).map((e) => e.to)).toEqual(['QUEUED']);
  });
});

describe('every status change is one event: the worker running real commands', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-events-test-${process.pid}`);
  const { http, newJob, queue, read, executionsOf } = helpers(() => t);

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_WORK_DIR: workDir,
        ORBIT_KILL_GRACE_SECONDS: '1',
        ORBIT_RETRY_BACKOFF_BASE_MS: '100',
        ORBIT_RETRY_BACKOFF_MAX_MS: '200',
        ORBIT_POLL_INTERVAL_MS: '200',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  const settled = (id: string) =>
    waitFor(async () => {
      const execution = await read(id);
      return FINAL.includes(execution.status as string) ? execution : undefined;
    }, `execution ${id} to finish`);

  it('QUEUED → RUNNING → SUCCEEDED', async () => {
    const execution = await queue((await newJob({ command: 'true' })).id);
    const final = await settled(execution.id);
    expect(final).toMatchObject({ status: 'SUCCEEDED', workerId: expect.any(String) });
    expect(await storedEvents(t.db, execution.id)).toEqual(
      expectedEvents(final, [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.SUCCEEDED]),
    );
  });

  it('QUEUED → RUNNING → FAILED, retried once, then failed for good', async () => {
    const job = await newJob({ command: 'exit 3', maxRetries: 1 });
    const first = await queue(job.id);
    const history = [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.FAILED];
    const final = await settled(first.id);
    expect(final).toMatchObject({ status: 'FAILED', exitCode: 3 });
    const retry = await waitFor(async () => (await executionsOf(job.id))[1], 'the retry');
    const retried = await settled(retry.id as string);
    expect(await storedEvents(t.db, first.id)).toEqual(expectedEvents(final, history, true));
    expect(await storedEvents(t.db, retry.id as string)).toEqual(expectedEvents(retried, history, false));
  });

  it('QUEUED → RUNNING → FAILED by its timeout', async () => {
    const execution = await queue((await newJob({ command: 'sleep 30', timeoutSeconds: 1 })).id);
    const final = await settled(execution.id);
    expect(final).toMatchObject({ status: 'FAILED', exitCode: 124, errorMessage: 'Timed out after 1 seconds' });
    expect(await storedEvents(t.db, execution.id)).toEqual(
      expectedEvents(final, [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.FAILED]),
    );
    const metrics = await http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^orbit_timeouts_total 1$/m);
  });

  it('QUEUED → RUNNING → CANCELLED while the command runs', async () => {
    const execution = await queue((await newJob({ command: 'sleep 30' })).id);
    await waitFor(async () => ((await read(execution.id)).status === 'RUNNING' ? true : undefined), 'the start');
    await http().post(`/executions/${execution.id}/cancel`).send({}).expect(200);
    const final = await settled(execution.id);
    expect(final.status).toBe('CANCELLED');
    // the worker's own record of the killed command is refused: still one event per change
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await storedEvents(t.db, execution.id)).toEqual(
      expectedEvents(final, [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING, ExecutionStatus.CANCELLED]),
    );
  });
});
