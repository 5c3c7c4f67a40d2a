import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { ActionBody, Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;

/** The lifecycle actions an operator drives through the API, as the audit trail names them. */
type AuditRow = Pick<Schema<'AuditEventResponse'>, 'actor' | 'action' | 'targetId'>;

async function operatorToken(t: TestApp): Promise<{ name: string; secret: string }> {
  const name = `operator-${Math.random().toString(36).slice(2, 8)}`;
  const body: Schema<'CreateTokenDto'> = { name, role: 'operator' };
  const res = await request(t.app.getHttpServer()).post('/tokens').send(body).expect(201);
  return { name, secret: (res.body as Schema<'CreatedTokenResponse'>).token };
}

async function trail(t: TestApp): Promise<AuditRow[]> {
  const res = await request(t.app.getHttpServer()).get('/audit?limit=100').expect(200);
  return (res.body as Schema<'AuditPageResponse'>).items
    .map(({ actor, action, targetId }) => ({ actor, action, targetId }))
    .filter((row) => row.action.startsWith('execution.'))
    .reverse();
}

describe('runner actions on a run a worker executes', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-runner-actions-${process.pid}`);
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '100' } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('start, succeed and fail are refused with 409 and the run goes on; cancel goes through the worker; each change is audited', async () => {
    const operator = await operatorToken(t);
    const as = (path: string, body: ActionBody = {}) =>
      http().post(path).set('Authorization', `Bearer ${operator.secret}`).send(body);
    const job = await createJob(t, { name: 'long', command: 'sleep 30', cronExpression: null });
    const run = (await as(`/jobs/${job.id}/executions`).expect(201)).body as Execution;
    const running = await waitFor(async () => {
      const { body } = await http().get(`/executions/${run.id}`);
      return body.status === 'RUNNING' ? (body as Execution) : undefined;
    }, 'the worker to start the run');
    expect(running.workerId).toEqual(expect.any(String));

    const held = `Execution ${run.id} is being run by worker ${running.workerId}: only that worker reports how it ends (cancel it to stop it)`;
    const refusals = [
      [await as(`/executions/${run.id}/succeed`, { exitCode: 0 }), held],
      [await as(`/executions/${run.id}/fail`, { exitCode: 1, errorMessage: 'forged' }), held],
      [await as(`/executions/${run.id}/start`), 'Only queued executions can be started'],
    ] as const;
    for (const [res, message] of refusals) {
      expect({ status: res.status, message: res.body.message }).toEqual({ status: 409, message });
    }
    expect((await http().get(`/executions/${run.id}`).expect(200)).body).toMatchObject({
      status: 'RUNNING',
      workerId: running.workerId,
      exitCode: null,
      errorMessage: null,
    });

    expect((await as(`/executions/${run.id}/cancel`)).status).toBe(200);
    expect((await finalExecution((path) => http().get(path), run.id)).status).toBe('CANCELLED');

    expect(await trail(t)).toEqual([
      { actor: operator.name, action: 'execution.triggered', targetId: run.id },
      { actor: operator.name, action: 'execution.cancelled', targetId: run.id },
    ]);
  });
});

describe('runner actions of an outside runner', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
  });
  afterAll(() => t.close());

  it('start, succeed and fail work as the lifecycle says, and each is in the audit trail with its operator', async () => {
    const operator = await operatorToken(t);
    const as = (path: string, body: ActionBody = {}) =>
      http().post(path).set('Authorization', `Bearer ${operator.secret}`).send(body);
    const job = await createJob(t, { name: 'outside', command: 'true', cronExpression: null });
    const first = (await as(`/jobs/${job.id}/executions`).expect(201)).body as Execution;
    const second = (await as(`/jobs/${job.id}/executions`).expect(201)).body as Execution;

    expect((await as(`/executions/${first.id}/start`).expect(200)).body).toMatchObject({
      status: 'RUNNING',
      workerId: null,
    });
    expect((await as(`/executions/${first.id}/succeed`, { exitCode: 0 }).expect(200)).body.status).toBe('SUCCEEDED');
    await as(`/executions/${second.id}/start`).expect(200);
    const failed = await as(`/executions/${second.id}/fail`, { exitCode: 2, errorMessage: 'disk full' }).expect(200);
    expect(failed.body).toMatchObject({ status: 'FAILED', exitCode: 2, errorMessage: 'disk full' });

    const refused = await as(`/executions/${first.id}/fail`, { exitCode: 1, errorMessage: 'late' });
    expect({ status: refused.status, message: refused.body.message }).toEqual({
      status: 409,
      message: 'Only running executions can fail',
    });

    const by = (action: string, targetId: unknown) => ({ actor: operator.name, action, targetId });
    expect(await trail(t)).toEqual([
      by('execution.triggered', first.id),
      by('execution.triggered', second.id),
      by('execution.started', first.id),
      by('execution.succeeded', first.id),
      by('execution.started', second.id),
      by('execution.failed', second.id),
    ]);
  });
});
