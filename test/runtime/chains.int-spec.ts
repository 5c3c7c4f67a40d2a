import { jest } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ExecutionStatus, isFinal } from '../../src/executions/domain/execution-status.js';
import { EventConsumers } from '../../src/events/application/event-consumers.js';
import { ChainConsumer, CHAINS_CONSUMER } from '../../src/runtime/application/chain-consumer.js';
import type { Schema } from '../support/api-types.js';
import { watchIdleHeads } from '../support/idle-heads.js';
import { jobCreator, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;

/** A schedule that does not fire while the tests run: runs come from the tests and the triggers. */
const NEVER = '0 0 1 1 *';

/** The stream's newest seq. */
const headOf = async (t: TestApp) => Number((await t.db.sql(`SELECT max(seq) AS seq FROM events`)).rows[0].seq);

async function executionsOf(t: TestApp, jobId: string): Promise<Execution[]> {
  const { body } = await request(t.app.getHttpServer()).get('/executions').query({ jobId, limit: 100 });
  return (body as Schema<'ExecutionPageResponse'>).items;
}

/** The runs of `jobId` once the chains consumer is surely past everything final so far. */
async function settledRunsOf(t: TestApp, jobId: string): Promise<Execution[]> {
  const cursor = async () =>
    Number((await t.db.sql(`SELECT after_seq FROM event_cursors WHERE consumer = 'chains'`)).rows[0]?.after_seq ?? 0);
  const last = await headOf(t);
  await waitFor(async () => ((await cursor()) >= last ? true : undefined), 'the chains consumer to catch up');
  return executionsOf(t, jobId);
}

describe('chains: a run of one job follows the final outcome of another, over real runs', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-chains-test-${process.pid}`);
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_WORK_DIR: workDir,
        ORBIT_RETRY_BACKOFF_BASE_MS: '100',
        ORBIT_RETRY_BACKOFF_MAX_MS: '200',
        ORBIT_POLL_INTERVAL_MS: '200',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  const newJob = jobCreator(() => t, { command: 'true', cronExpression: NEVER });

  const settled = (id: string): Promise<Execution> => finalExecution((path) => http().get(path), id);

  it('A → B on success and A → C on failure; B sees the upstream run in its environment', async () => {
    const a = await newJob({ command: 'true' });
    const b = await newJob({
      command: `echo "$ORBIT_UPSTREAM_EXECUTION_ID $ORBIT_UPSTREAM_STATUS" > ${workDir}/b.out`,
      triggers: [{ after: a.name, on: ['SUCCEEDED'] }],
    });
    const c = await newJob({ triggers: [{ after: a.name, on: ['FAILED'] }] });

    const ok = await http().post(`/jobs/${a.id}/executions`).expect(201);
    expect((await settled(ok.body.id)).status).toBe('SUCCEEDED');
    const [chained] = await waitFor(async () => {
      const runs = await executionsOf(t, b.id);
      return runs.length > 0 ? runs : undefined;
    }, 'B to be triggered');
    expect(chained).toMatchObject({ trigger: 'CHAIN', triggeredBy: ok.body.id });
    await settled(chained!.id);
    expect(readFileSync(`${workDir}/b.out`, 'utf8')).toBe(`${ok.body.id} SUCCEEDED\n`);
    expect(await settledRunsOf(t, c.id)).toEqual([]);

    await http().patch(`/jobs/${a.id}`).send({ command: 'exit 4' }).expect(200);
    const failed = await http().post(`/jobs/${a.id}/executions`).expect(201);
    expect((await settled(failed.body.id)).status).toBe('FAILED');
    const onFailure = await waitFor(async () => {
      const runs = await executionsOf(t, c.id);
      return runs.length > 0 ? runs : undefined;
    }, 'C to be triggered');
    expect(onFailure).toEqual([expect.objectContaining({ trigger: 'CHAIN', triggeredBy: failed.body.id })]);
    expect(await settledRunsOf(t, b.id)).toHaveLength(1);
  });

  it('A with maxRetries 2 failing twice then succeeding triggers B once, after the last attempt', async () => {
    const counter = join(workDir, 'attempts');
    const a = await newJob({
      maxRetries: 2,
      command: `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]`,
    });
    const b = await newJob({ triggers: [{ after: a.name, on: ['SUCCEEDED', 'FAILED'] }] });

    await http().post(`/jobs/${a.id}/executions`).expect(201);
    const attempts = await waitFor(async () => {
      const runs = await executionsOf(t, a.id);
      return runs.length === 3 && runs.every((run) => isFinal(run.status as ExecutionStatus)) ? runs : undefined;
    }, 'three attempts of A');
    const last = attempts.find((run) => run.attempt === 3)!;
    expect(last.status).toBe('SUCCEEDED');

    const runs = await waitFor(async () => {
      const found = await executionsOf(t, b.id);
      return found.length > 0 ? found : undefined;
    }, 'B to be triggered');
    expect(runs).toEqual([expect.objectContaining({ trigger: 'CHAIN', triggeredBy: last.id })]);
    expect(await settledRunsOf(t, b.id)).toHaveLength(1);
  });

  it('a paused downstream job is not triggered', async () => {
    const a = await newJob();
    const b = await newJob({ enabled: false, triggers: [{ after: a.name }] });
    const run = await http().post(`/jobs/${a.id}/executions`).expect(201);
    await settled(run.body.id);
    expect(await settledRunsOf(t, b.id)).toEqual([]);
  });

  it('the chained run takes the parameter defaults', async () => {
    const a = await newJob();
    const b = await newJob({
      command: `echo "$ORBIT_PARAM_TARGET" > ${workDir}/target.out`,
      parameters: [{ name: 'TARGET', default: 'staging' }],
      triggers: [{ after: a.name }],
    });
    await settled((await http().post(`/jobs/${a.id}/executions`).expect(201)).body.id);
    const [chained] = await waitFor(async () => {
      const runs = await executionsOf(t, b.id);
      return runs.length > 0 ? runs : undefined;
    }, 'B to be triggered');
    expect((await settled(chained!.id)).parameters).toEqual({ TARGET: 'staging' });
    expect(readFileSync(`${workDir}/target.out`, 'utf8')).toBe('staging\n');
  });
});

describe('chains: while no job has a trigger', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_POLL_INTERVAL_MS: '200' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const newJob = jobCreator(() => t, { command: 'true', cronExpression: NEVER });
  it('the consumer reads nothing, and a trigger set later follows only the outcomes after it', async () => {
    const handle = jest.spyOn(t.app.get(ChainConsumer), 'handle');
    const idleHeadOf = watchIdleHeads(t.app.get(EventConsumers));
    const a = await newJob();
    const b = await newJob();
    const before = await http().post(`/jobs/${a.id}/executions`).expect(201);
    await finalExecution((path) => http().get(path), before.body.id);
    const last = await headOf(t);
    await waitFor(() => (idleHeadOf(CHAINS_CONSUMER) >= last ? true : undefined), 'an idle pass past the run');
    expect(handle).not.toHaveBeenCalled();

    await http()
      .patch(`/jobs/${b.id}`)
      .send({ triggers: [{ after: a.name }] })
      .expect(200);
    const after = await http().post(`/jobs/${a.id}/executions`).expect(201);
    await finalExecution((path) => http().get(path), after.body.id);
    await waitFor(async () => ((await executionsOf(t, b.id)).length > 0 ? true : undefined), 'B to be triggered');
    expect(await settledRunsOf(t, b.id)).toEqual([
      expect.objectContaining({ trigger: 'CHAIN', triggeredBy: after.body.id }),
    ]);
    expect(handle).toHaveBeenCalled();
  });
});

describe('chains: what a change of triggers may do', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (name: string, fields: JobFields = {}) =>
    http()
      .post('/jobs')
      .send({ name, command: 'true', cronExpression: null, ...fields });

  it('a job may have no schedule when it says so with null; a missing cronExpression stays a 400 naming it', async () => {
    const res = await create('no-schedule').expect(201);
    expect(res.body).toMatchObject({ cronExpression: null, nextRunAt: null });
    expect((await http().get(`/jobs/${res.body.id}/next-runs`).expect(200)).body).toEqual({ runs: [] });

    const missing = await http().post('/jobs').send({ name: 'forgot', command: 'true' }).expect(400);
    expect(missing.body.message).toContain('cronExpression');
    const scheduled = await create('scheduled', { cronExpression: '0 3 * * *' }).expect(201);
    const unscheduled = await http().patch(`/jobs/${scheduled.body.id}`).send({ cronExpression: null }).expect(200);
    expect(unscheduled.body).toMatchObject({ cronExpression: null, nextRunAt: null });
  });

  it('a cycle of two is refused with a 400 naming it, and nothing changes', async () => {
    await create('two-a').expect(201);
    const b = await create('two-b', { triggers: [{ after: 'two-a' }] }).expect(201);
    const a = (await http().get('/jobs').query({ name: 'two-a' })).body.items[0];

    const res = await http()
      .patch(`/jobs/${a.id}`)
      .send({ triggers: [{ after: 'two-b' }] })
      .expect(400);
    expect(res.body.message).toContain('two-a → two-b → two-a');
    expect((await http().get(`/jobs/${a.id}`)).body.triggers).toEqual([]);
    expect((await http().get(`/jobs/${b.body.id}`)).body.triggers).toEqual([{ after: 'two-a', on: ['SUCCEEDED'] }]);
  });

  it('a cycle of three is refused with a 400 naming it', async () => {
    const a = await create('three-a').expect(201);
    await create('three-b', { triggers: [{ after: 'three-a' }] }).expect(201);
    await create('three-c', { triggers: [{ after: 'three-b', on: ['FAILED'] }] }).expect(201);

    const res = await http()
      .patch(`/jobs/${a.body.id}`)
      .send({ triggers: [{ after: 'three-c' }] })
      .expect(400);
    expect(res.body.message).toContain('three-a → three-c → three-b → three-a');
  });

  it('a job cannot follow itself', async () => {
    const res = await create('self', { triggers: [{ after: 'self' }] }).expect(400);
    expect(res.body.message).toContain('self → self');
  });

  it('deleting or renaming a job others follow is a 409 naming them', async () => {
    const up = await create('upstream').expect(201);
    await create('follower-1', { triggers: [{ after: 'upstream' }] }).expect(201);
    await create('follower-2', { triggers: [{ after: 'upstream', on: ['CANCELLED'] }] }).expect(201);

    const removal = await http().delete(`/jobs/${up.body.id}`).expect(409);
    expect(removal.body.message).toContain('follower-1, follower-2');
    const rename = await http().patch(`/jobs/${up.body.id}`).send({ name: 'renamed' }).expect(409);
    expect(rename.body.message).toContain('follower-1, follower-2');
    await http().get(`/jobs/${up.body.id}`).expect(200);
  });
});
