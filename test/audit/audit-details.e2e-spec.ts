import request from 'supertest';
import { jobBody } from '../support/jobs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

interface Entry {
  action: string;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** What the trail says of each change: the target's name as it was, and what changed, before → after. */
describe("GET /audit: each change's target by name, and what changed", () => {
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  const as = <T extends request.Test>(test: T) => test.set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);

  beforeAll(async () => {
    t = await createTestApp({ role: 'api' });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The newest entry about `targetId` (the trail is newest first). */
  async function latest(targetId: string): Promise<Entry> {
    const res = await as(api().get(`/audit?targetId=${targetId}&limit=1`)).expect(200);
    return (res.body as { items: Entry[] }).items[0]!;
  }

  it('a job: its name on every entry, even after it was deleted; an update, a pause and a resume with what each changed', async () => {
    const job = (await as(api().post('/jobs')).send(jobBody({ name: 'audit-nightly', cronExpression: '0 3 * * *' })))
      .body as { id: string };
    expect((await latest(job.id)).details).toEqual({ name: 'audit-nightly' });

    await as(api().patch(`/jobs/${job.id}`))
      .send({ cronExpression: '0 4 * * *', maxRetries: 2 })
      .expect(200);
    expect(await latest(job.id)).toMatchObject({
      action: 'job.updated',
      details: {
        name: 'audit-nightly',
        changes: {
          cronExpression: { before: '0 3 * * *', after: '0 4 * * *' },
          maxRetries: { before: 0, after: 2 },
        },
      },
    });
    // what time or the change itself moves is not a change someone made
    const updated = (await latest(job.id)).details.changes as Record<string, unknown>;
    expect(Object.keys(updated).sort()).toEqual(['cronExpression', 'maxRetries']);

    await as(api().post(`/jobs/${job.id}/pause`))
      .send({ note: 'Waiting for the new disk' })
      .expect(200);
    expect((await latest(job.id)).details).toEqual({
      name: 'audit-nightly',
      changes: {
        enabled: { before: true, after: false },
        pausedNote: { before: null, after: 'Waiting for the new disk' },
      },
    });

    await as(api().post(`/jobs/${job.id}/resume`))
      .send({})
      .expect(200);
    expect((await latest(job.id)).details).toMatchObject({
      changes: {
        enabled: { before: false, after: true },
        pausedNote: { before: 'Waiting for the new disk', after: null },
      },
    });

    await as(api().delete(`/jobs/${job.id}`)).expect(204);
    expect(await latest(job.id)).toMatchObject({ action: 'job.deleted', details: { name: 'audit-nightly' } });
  });

  it('a concurrency group: a new limit before → after, and its name when deleted', async () => {
    const group = (await as(api().post('/concurrency-groups')).send({ name: 'audit-db', limit: 2 }).expect(201))
      .body as { id: string };
    await as(api().patch(`/concurrency-groups/${group.id}`))
      .send({ limit: 5 })
      .expect(200);
    expect((await latest(group.id)).details).toEqual({ name: 'audit-db', changes: { limit: { before: 2, after: 5 } } });
    await as(api().delete(`/concurrency-groups/${group.id}`)).expect(204);
    expect((await latest(group.id)).details).toEqual({ name: 'audit-db' });
  });

  it('a refused change records nothing, and a change of nothing records no changes', async () => {
    const job = (
      await as(api().post('/jobs'))
        .send(jobBody({ name: 'audit-same' }))
        .expect(201)
    ).body as { id: string };
    await as(api().patch(`/jobs/${job.id}`))
      .send({ maxRetries: -1 })
      .expect(400);
    expect((await latest(job.id)).action).toBe('job.created');
    await as(api().patch(`/jobs/${job.id}`))
      .send({ name: 'audit-same' })
      .expect(200);
    expect(await latest(job.id)).toMatchObject({ action: 'job.updated', details: { name: 'audit-same' } });
    expect((await latest(job.id)).details).not.toHaveProperty('changes');
  });
});
