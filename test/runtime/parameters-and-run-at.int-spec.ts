import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { jobCreator } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution } from '../support/wait.js';

describe('parameters and runs at a given time, over real runs', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-parameters-test-${process.pid}`);
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '200' } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  const newJob = jobCreator(() => t, { command: 'true', cronExpression: null });

  const settled = (id: string): Promise<Schema<'ExecutionResponse'>> => finalExecution((path) => http().get(path), id);

  const declared = [
    { name: 'TARGET', description: 'Where to', default: 'staging', pattern: 'staging|production' },
    { name: 'TICKET', required: true, pattern: '[A-Z]+-[0-9]+' },
    { name: 'NOTE' },
  ];

  it('a run takes the values given and the defaults for the rest; the command sees them and the run shows them', async () => {
    const job = await newJob({
      parameters: declared,
      command: `printf '%s|%s|%s' "$ORBIT_PARAM_TARGET" "$ORBIT_PARAM_TICKET" "\${ORBIT_PARAM_NOTE-unset}" > out`,
    });
    expect(job.parameters).toEqual([
      { name: 'TARGET', description: 'Where to', default: 'staging', required: false, pattern: 'staging|production' },
      { name: 'TICKET', description: null, default: null, required: true, pattern: '[A-Z]+-[0-9]+' },
      { name: 'NOTE', description: null, default: null, required: false, pattern: null },
    ]);

    const defaults = await http()
      .post(`/jobs/${job.id}/executions`)
      .send({ parameters: { TICKET: 'OPS-1' } })
      .expect(201);
    expect(defaults.body.parameters).toEqual({ TARGET: 'staging', TICKET: 'OPS-1' });
    expect((await settled(defaults.body.id)).status).toBe('SUCCEEDED');
    expect(readFileSync(join(workDir, 'out'), 'utf8')).toBe('staging|OPS-1|unset');

    const overridden = await http()
      .post(`/jobs/${job.id}/executions`)
      .send({ parameters: { TARGET: 'production', TICKET: 'OPS-2', NOTE: 'by hand' } })
      .expect(201);
    const done = await settled(overridden.body.id);
    expect(done.parameters).toEqual({ TARGET: 'production', TICKET: 'OPS-2', NOTE: 'by hand' });
    expect(readFileSync(join(workDir, 'out'), 'utf8')).toBe('production|OPS-2|by hand');
  });

  it.each([
    ['an unknown name', { UNKNOWN: 'x', TICKET: 'OPS-1' }, 'parameters.UNKNOWN'],
    ['a missing required one', {}, 'parameters.TICKET is required'],
    ['a value that does not match', { TICKET: 'ops-1' }, 'parameters.TICKET must match'],
    ['a value that matches in part only', { TICKET: 'OPS-1', TARGET: 'staging2' }, 'parameters.TARGET must match'],
    ['a value that is no string', { TICKET: 'OPS-1', NOTE: 42 }, 'parameters.NOTE must be a string'],
    ['a value over 4 KiB', { TICKET: 'OPS-1', NOTE: 'x'.repeat(4097) }, 'parameters.NOTE must be at most 4096 bytes'],
  ])('%s is refused with a 400 naming it, and nothing is queued', async (_case, parameters, message) => {
    const job = await newJob({ parameters: declared });
    const res = await http().post(`/jobs/${job.id}/executions`).send({ parameters }).expect(400);
    expect(res.body.message).toContain(message);
    expect((await http().get('/executions').query({ jobId: job.id })).body.items).toEqual([]);
  });

  it('a value is never spliced into the command: $(touch x) stays a string', async () => {
    const job = await newJob({
      parameters: [{ name: 'PROBE' }],
      command: 'printf "%s" "$ORBIT_PARAM_PROBE" > probe.out; echo $ORBIT_PARAM_PROBE >> probe.out',
    });
    const probe = '$(touch injected); `touch injected2`';
    const run = await http()
      .post(`/jobs/${job.id}/executions`)
      .send({ parameters: { PROBE: probe } })
      .expect(201);
    expect((await settled(run.body.id)).status).toBe('SUCCEEDED');
    expect(readFileSync(join(workDir, 'probe.out'), 'utf8')).toBe(`${probe}${probe}\n`);
    expect(existsSync(join(workDir, 'injected'))).toBe(false);
    expect(existsSync(join(workDir, 'injected2'))).toBe(false);
  });

  it('runAt queues a manual run due then, which starts within a second of it', async () => {
    const job = await newJob({ command: 'date +%s%3N > ran-at' });
    const runAt = new Date(Date.now() + 2500);
    const res = await http().post(`/jobs/${job.id}/executions`).send({ runAt: runAt.toISOString() }).expect(201);
    expect(res.body).toMatchObject({ trigger: 'MANUAL', status: 'QUEUED', dueAt: runAt.toISOString() });

    const done = await settled(res.body.id);
    const startedAt = new Date(done.startedAt!).getTime();
    expect(startedAt).toBeGreaterThanOrEqual(runAt.getTime());
    expect(startedAt - runAt.getTime()).toBeLessThan(1000);
  });

  it('a run queued for later can be cancelled before it starts, and never runs', async () => {
    const job = await newJob({ command: 'touch should-not-exist' });
    const runAt = new Date(Date.now() + 1500);
    const res = await http().post(`/jobs/${job.id}/executions`).send({ runAt: runAt.toISOString() }).expect(201);
    const cancelled = await http().post(`/executions/${res.body.id}/cancel`).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', startedAt: null });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(existsSync(join(workDir, 'should-not-exist'))).toBe(false);
  });

  it.each([
    ['a minute ago', () => new Date(Date.now() - 60_000).toISOString(), 'is in the past'],
    ['in 366 days', () => new Date(Date.now() + 366 * 86_400_000).toISOString(), 'more than a year ahead'],
    ['not an instant', () => 'tomorrow', 'runAt'],
  ])('runAt %s is refused with a 400', async (_case, runAt, message) => {
    const job = await newJob();
    const res = await http().post(`/jobs/${job.id}/executions`).send({ runAt: runAt() }).expect(400);
    expect(res.body.message).toContain(message);
  });
});
