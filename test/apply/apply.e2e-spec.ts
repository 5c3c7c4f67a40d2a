import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

/** The file is sent as it is: some tests send a wrong one on purpose. */
type Body = Record<string, unknown>;
type Plan = Schema<'ApplyResponse'>;

const FILE = {
  channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } },
  jobs: {
    backup: { command: 'backup.sh', cronExpression: '0 3 * * *', alerts: [{ channel: 'ops' }] },
    report: { command: 'report.sh', cronExpression: '@hourly', maxRetries: 2 },
  },
};

describe('POST /apply', () => {
  let t: TestApp;
  const apply = (file: unknown, options: Omit<Schema<'ApplyRequestDto'>, 'file'> = {}) =>
    request(t.app.getHttpServer())
      .post('/apply')
      .send({ file, ...options });
  const jobs = async () =>
    ((await request(t.app.getHttpServer()).get('/jobs').expect(200)).body as Schema<'JobPageResponse'>).items
      .map((job) => job.name)
      .sort();

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => t.close());

  it('a dry run answers the plan and changes nothing; the apply does the same; again, nothing changes', async () => {
    const plan = (await apply(FILE, { dryRun: true }).expect(200)).body as Plan;
    expect(plan.dryRun).toBe(true);
    expect(plan.items.map((i) => `${i.section}.${i.name} ${i.action}`)).toEqual([
      'channels.ops create',
      'jobs.backup create',
      'jobs.report create',
    ]);
    expect(await jobs()).toEqual([]);
    expect((await apply(FILE).expect(200)).body).toEqual({ ...plan, dryRun: false });
    expect(await jobs()).toEqual(['backup', 'report']);
    const again = (await apply(FILE).expect(200)).body as Plan;
    expect(again.items.map((i) => i.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('an update lists the changed fields, a field left out goes back to its default', async () => {
    const edited = { ...FILE, jobs: { ...FILE.jobs, report: { command: 'report.sh', cronExpression: '@daily' } } };
    const { items } = (await apply(edited).expect(200)).body as Plan;
    expect(items[2]).toEqual({
      section: 'jobs',
      name: 'report',
      action: 'update',
      changes: [
        { field: 'cronExpression', from: '@hourly', to: '@daily' },
        { field: 'maxRetries', from: 2, to: 0 },
      ],
    });
  });

  it.each([
    [{ jobs: { ...FILE.jobs, broken: { command: 'x', cronExpression: 'not a cron' } } }, 'jobs.broken: cronExpression'],
    [
      { jobs: { ...FILE.jobs, broken: { command: 'x', cronExpression: '@daily', maxRetries: 'two' } } },
      'jobs.broken.maxRetries',
    ],
    [
      { jobs: { ...FILE.jobs, broken: { command: 'x', cronExpression: '@daily', colour: 'red' } } },
      'jobs.broken.colour is not an accepted field',
    ],
    [
      { jobs: { broken: { command: 'x', cronExpression: '@daily', alerts: [{ channel: 'nowhere' }] } } },
      "jobs.broken: alerts[0].channel: the team default has no channel named 'nowhere'",
    ],
    [{ channels: { bad: { type: 'pigeon' } } }, 'channels.bad.type'],
  ] as Array<[{ jobs?: Body; channels?: Body }, string]>)(
    'a bad entry is a 400 naming it and its field, and nothing is applied (%#)',
    async (file, message) => {
      const before = await jobs();
      const res = await apply(
        { ...file, jobs: { fresh: { command: 'x', cronExpression: '@daily' }, ...file.jobs } },
        { prune: true },
      );
      expect(res.status).toBe(400);
      expect((res.body as { message: string }).message).toContain(message);
      expect(await jobs()).toEqual(before);
    },
  );

  it('prune deletes only the jobs an apply created that the file no longer names', async () => {
    await createJob(t, { name: 'by-hand', command: 'x', cronExpression: '@daily' });
    const { items } = (await apply({ jobs: { backup: FILE.jobs.backup } }, { prune: true }).expect(200)).body as Plan;
    expect(items.map((i) => `${i.name} ${i.action}`)).toEqual(['backup unchanged', 'report delete']);
    expect(await jobs()).toEqual(['backup', 'by-hand']);
  });
});
