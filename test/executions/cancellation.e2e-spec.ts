import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import type { Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

type Execution = Schema<'ExecutionResponse'>;

/** GET /executions/:id/cancellation: who cancelled a run and when, for every reader of it. */
describe('the cancellation of a run', () => {
  const clock = new FakeClock(new Date('2026-11-30T10:00:00.000Z'));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());

  async function token(role: 'viewer' | 'operator' | 'admin'): Promise<{ name: string; secret: string }> {
    const name = `${role}-${randomUUID().slice(0, 8)}`;
    const res = await api().post('/tokens').send({ name, role }).expect(201);
    return { name, secret: (res.body as Schema<'CreatedTokenResponse'>).token };
  }

  async function queued(): Promise<Execution> {
    const job = await createJob(t, { command: 'true' });
    return (await api().post(`/jobs/${job.id}/executions`).send({}).expect(201)).body as Execution;
  }

  /** The run's JSON as the API reads it. */
  async function runJson(id: string): Promise<Execution> {
    return (await api().get(`/executions/${id}`).expect(200)).body as Execution;
  }

  /** As a run cancelled before runs kept who cancelled them. */
  const forget = (id: string) => t.db.sql(`UPDATE executions SET cancelled_by = NULL WHERE id = $1`, [id]);

  beforeAll(async () => {
    t = await createTestApp({ clock });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('names the token that called cancel, and when; a viewer may read it', async () => {
    const operator = await token('operator');
    const viewer = await token('viewer');
    const run = await queued();
    clock.advance(5_000);
    await api().post(`/executions/${run.id}/cancel`).set('Authorization', `Bearer ${operator.secret}`).expect(200);
    clock.advance(5_000);
    const res = await api()
      .get(`/executions/${run.id}/cancellation`)
      .set('Authorization', `Bearer ${viewer.secret}`)
      .expect(200);
    expect(res.body).toEqual({
      executionId: run.id,
      at: new Date(Date.parse(run.createdAt) + 5_000).toISOString(),
      by: 'caller',
      actor: operator.name,
      replacedBy: null,
    });
  });

  it("is kept on the run, in its JSON as read and listed, and the cancel's answer says it", async () => {
    const operator = await token('operator');
    const run = await queued();
    const cancelled = await api()
      .post(`/executions/${run.id}/cancel`)
      .set('Authorization', `Bearer ${operator.secret}`)
      .expect(200);
    const cancelledBy = { by: 'caller', actor: operator.name };
    expect((cancelled.body as Execution).cancelledBy).toEqual(cancelledBy);
    expect(await runJson(run.id)).toEqual(cancelled.body);
    const [listed] = (await api().get('/executions').query({ jobId: run.jobId }).expect(200)).body.items as Execution[];
    expect(listed!.cancelledBy).toEqual(cancelledBy);
    // a run that was not cancelled says no one
    expect((await runJson((await queued()).id)).cancelledBy).toBeNull();
  });

  it('is answered from the run, not the trail: a cancel the trail does not show yet names its caller', async () => {
    const run = await queued();
    await t.app.get(ExecutionsService).cancel(run.id, 'ops-direct');
    expect((await api().get(`/executions/${run.id}/cancellation`).expect(200)).body).toEqual({
      executionId: run.id,
      at: clock.now().toISOString(),
      by: 'caller',
      actor: 'ops-direct',
      replacedBy: null,
    });
  });

  it('a run cancelled before runs kept it is told from the audit trail, as before', async () => {
    const operator = await token('operator');
    const run = await queued();
    await api().post(`/executions/${run.id}/cancel`).set('Authorization', `Bearer ${operator.secret}`).expect(200);
    await forget(run.id);
    expect((await runJson(run.id)).cancelledBy).toBeNull();
    expect((await api().get(`/executions/${run.id}/cancellation`).expect(200)).body).toMatchObject({
      by: 'caller',
      actor: operator.name,
    });
  });

  it('a run cancelled because its job was deleted names who deleted the job', async () => {
    const run = await queued();
    await api().delete(`/jobs/${run.jobId}`).expect(204);
    expect((await runJson(run.id)).cancelledBy).toEqual({ by: 'job_deletion', actor: 'ORBIT_ADMIN_TOKEN' });
    expect((await api().get(`/executions/${run.id}/cancellation`).expect(200)).body).toEqual({
      executionId: run.id,
      at: clock.now().toISOString(),
      by: 'job_deletion',
      actor: 'ORBIT_ADMIN_TOKEN',
      replacedBy: null,
    });
  });

  it('a run cancelled because an apply pruned its job names who applied (the trail names no job there)', async () => {
    const admin = await token('admin');
    const name = `pruned-${randomUUID().slice(0, 8)}`;
    const apply = (jobs: object, prune: boolean) =>
      api().post('/apply').set('Authorization', `Bearer ${admin.secret}`).send({ file: { jobs }, prune }).expect(200);
    await apply({ [name]: { command: 'true', cronExpression: '0 3 * * *' } }, false);
    const [job] = (await api().get('/jobs').query({ name }).expect(200)).body.items as { id: string }[];
    const run = (await api().post(`/jobs/${job!.id}/executions`).send({}).expect(201)).body as Execution;
    await apply({}, true);
    expect((await runJson(run.id)).cancelledBy).toEqual({ by: 'job_deletion', actor: admin.name });
    expect((await api().get(`/executions/${run.id}/cancellation`).expect(200)).body).toMatchObject({
      by: 'job_deletion',
      actor: admin.name,
    });
  });

  it("a run the scheduler cancelled for a REPLACE job's next slot names that slot's run, and no caller", async () => {
    const scheduling = await createTestApp({ role: 'all', init: false, clock, db: t.db });
    try {
      const job = await createJob(t, {
        command: 'true',
        cronExpression: '*/10 * * * * *',
        concurrencyPolicy: 'REPLACE',
      });
      const scheduler = scheduling.app.get(SchedulerService);
      const runs = async () =>
        ((await api().get('/executions').query({ jobId: job.id }).expect(200)).body.items as Execution[]).reverse();
      const passAtNextSlot = async () => {
        clock.set(new Date(Math.floor(clock.now().getTime() / 10_000) * 10_000 + 10_000));
        await scheduler.pass(clock.now());
      };
      await passAtNextSlot();
      await passAtNextSlot();
      const [replaced, next] = await runs();
      expect([replaced!.status, next!.status]).toEqual(['CANCELLED', 'QUEUED']);
      expect(replaced!.cancelledBy).toEqual({ by: 'scheduler', actor: null });
      expect((await api().get(`/executions/${replaced!.id}/cancellation`).expect(200)).body).toEqual({
        executionId: replaced!.id,
        at: replaced!.finishedAt,
        by: 'scheduler',
        actor: null,
        replacedBy: next!.id,
      });
      await api().patch(`/jobs/${job.id}`).send({ enabled: false }).expect(200);
    } finally {
      await scheduling.close();
    }
  });

  it('an older run whose cancel neither the trail nor a replacing run shows is unknown: ask again', async () => {
    const run = await queued();
    // as in the moment between a cancel's change and its entry in the trail, before runs kept who cancelled them
    await t.app.get(ExecutionsService).cancel(run.id, 'ops-direct');
    await forget(run.id);
    expect((await api().get(`/executions/${run.id}/cancellation`).expect(200)).body).toEqual({
      executionId: run.id,
      at: clock.now().toISOString(),
      by: 'unknown',
      actor: null,
      replacedBy: null,
    });
  });

  it('answers 404 for a run that was not cancelled, and for an unknown one; 400 for a malformed id', async () => {
    const run = await queued();
    const res = await api().get(`/executions/${run.id}/cancellation`).expect(404);
    expect(res.body.message).toBe(`Execution ${run.id} was not cancelled: it is QUEUED`);
    const unknown = randomUUID();
    expect((await api().get(`/executions/${unknown}/cancellation`).expect(404)).body.message).toBe(
      `Execution ${unknown} not found`,
    );
    await api().get('/executions/not-a-uuid/cancellation').expect(400);
    await api().post(`/executions/${run.id}/cancel`).expect(200);
  });
});
