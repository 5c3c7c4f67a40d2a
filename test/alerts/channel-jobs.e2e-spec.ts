import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

type Channel = { id: string; name: string; jobs: Array<{ id: string; name: string; on: string[] }>; jobCount: number };

describe('a channel answers the jobs whose alert rules name it', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());
  const job = async (name: string, alerts: unknown[]) =>
    (await http().post('/jobs').send({ name, command: 'true', cronExpression: '0 3 * * *', alerts }).expect(201))
      .body as { id: string };
  const listed = async () =>
    Object.fromEntries(
      ((await http().get('/channels').expect(200)).body.items as Channel[]).map((c) => [c.name, c] as const),
    );

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
    for (const name of ['ops', 'team', 'unused']) {
      await http().post('/channels').send({ name, type: 'slack', url: 'http://127.0.0.1:9/x' }).expect(201);
    }
  });
  afterAll(() => t.close());

  it('by name, with the events its rule names; a deleted job no more', async () => {
    const backup = await job('backup', [{ channel: 'ops', on: ['late', 'missed'] }, { channel: 'team' }]);
    const audit = await job('audit', [{ channel: 'ops' }]);
    const gone = await job('gone', [{ channel: 'team' }]);
    await http().delete(`/jobs/${gone.id}`).expect(204);

    const channels = await listed();
    expect(channels.ops).toMatchObject({
      jobs: [
        { id: audit.id, name: 'audit', on: ['failed'] },
        { id: backup.id, name: 'backup', on: ['late', 'missed'] },
      ],
      jobCount: 2,
    });
    expect(channels.team).toMatchObject({ jobs: [{ name: 'backup', on: ['failed'] }], jobCount: 1 });
    expect(channels.unused).toMatchObject({ jobs: [], jobCount: 0 });
    const one = (await http().get(`/channels/${channels.ops!.id}`).expect(200)).body as Channel;
    expect(one.jobs.map((j) => j.name)).toEqual(['audit', 'backup']);
  });

  it('the first 20 by name, and how many in all', async () => {
    for (let i = 0; i < 22; i++) await job(`many-${String(i).padStart(2, '0')}`, [{ channel: 'unused' }]);
    const { unused } = await listed();
    expect(unused!.jobCount).toBe(22);
    expect(unused!.jobs.map((j) => j.name)).toEqual(
      Array.from({ length: 20 }, (_, i) => `many-${String(i).padStart(2, '0')}`),
    );
  });
});
