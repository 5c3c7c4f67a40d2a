import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app.js';

/** Bodies are sent and read as plain JSON: `team` is newer than the generated API types. */
type Body = Record<string, unknown>;
interface Plan {
  dryRun: boolean;
  team: string;
  items: Array<{ section: string; name: string; action: string }>;
}
interface JobItem {
  name: string;
  team: string;
  command: string;
}

/** Where the test's Orbit says people reach it: a person's changes come from there. */
const ORIGIN = 'http://orbit.test';
const PERSON = 'ada@example.com';

/** POST /apply and GET /orbit-file keep to one team: what they compare, create, delete and export. */
describe('POST /apply and GET /orbit-file in a team', () => {
  let t: TestApp;
  /** Team tokens of `payments`: an admin and an operator. */
  let paymentsAdmin: string;
  let paymentsOperator: string;

  const http = () => request(t.app.getHttpServer());
  /** As a team token, as the person (named by the trusted proxy; `Sec-Fetch-Mode` keeps the test's admin token off), else as the admin. */
  const as = (token: string | undefined, method: 'get' | 'post', path: string) => {
    const call = http()[method](path);
    if (token === PERSON)
      return call.set('X-Forwarded-User', PERSON).set('Sec-Fetch-Mode', 'cors').set('Origin', ORIGIN);
    return token ? call.set('Authorization', `Bearer ${token}`) : call;
  };
  const apply = (body: Body, token?: string) => as(token, 'post', '/apply').send(body);
  const jobsOf = async (team?: string): Promise<JobItem[]> =>
    (
      (
        await http()
          .get(`/jobs?limit=100${team ? `&team=${team}` : ''}`)
          .expect(200)
      ).body as { items: JobItem[] }
    ).items;
  const names = async (team?: string) => (await jobsOf(team)).map((job) => job.name).sort();
  const tokenFor = async (role: string) =>
    (
      (
        await http()
          .post('/tokens')
          .send({ name: `payments-${role}`, role, team: 'payments' })
          .expect(201)
      ).body as {
        token: string;
      }
    ).token;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        ORBIT_ALERTS_ALLOW_PRIVATE: 'true',
        ORBIT_PUBLIC_URL: ORIGIN,
        ORBIT_TRUSTED_USER_HEADER: 'X-Forwarded-User',
        ORBIT_TRUSTED_PROXIES: '127.0.0.1, ::1',
      },
    });
    await http().post('/teams').send({ name: 'payments' }).expect(201);
    // a person who administers payments and only views default
    await http()
      .put('/teams/payments/grants')
      .send({ grants: [{ kind: 'user', subject: PERSON, role: 'admin' }] })
      .expect(200);
    await http()
      .put('/teams/default/grants')
      .send({ grants: [{ kind: 'user', subject: PERSON, role: 'viewer' }] })
      .expect(200);
    paymentsAdmin = await tokenFor('admin');
    paymentsOperator = await tokenFor('operator');
    // the team default's, made and managed by an apply of its own
    await apply({
      file: {
        channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } },
        jobs: {
          backup: { command: 'backup.sh --secret-flag', cronExpression: '0 3 * * *' },
          report: { command: 'report.sh', cronExpression: '@hourly' },
        },
      },
    }).expect(200);
  });
  afterAll(() => t.close());

  it("what a file names goes to the body's team; the answer says which", async () => {
    const file = {
      channels: { 'payments-hooks': { type: 'webhook', url: 'http://127.0.0.1:9/payments' } },
      jobs: { ledger: { command: 'ledger.sh', cronExpression: '@daily' } },
    };
    const plan = (await apply({ file, team: 'payments' }).expect(200)).body as Plan;
    expect(plan).toEqual({
      dryRun: false,
      team: 'payments',
      items: [
        { section: 'channels', name: 'payments-hooks', action: 'create', changes: [] },
        { section: 'jobs', name: 'ledger', action: 'create', changes: [] },
      ],
    });
    expect(await jobsOf('payments')).toEqual([expect.objectContaining({ name: 'ledger', team: 'payments' })]);
    const channel = await t.db.sql(`SELECT team FROM channels WHERE name = 'payments-hooks'`);
    expect(channel.rows).toEqual([{ team: 'payments' }]);
    expect(await names('default')).toEqual(['backup', 'report']);
  });

  it("without `team`, a team token's file goes to its only team, and an Orbit admin's to default", async () => {
    const file = {
      jobs: {
        ledger: { command: 'ledger.sh', cronExpression: '@daily' },
        invoices: { command: 'invoices.sh', cronExpression: '@daily' },
      },
    };
    const plan = (await apply({ file }, paymentsAdmin).expect(200)).body as Plan;
    expect(plan.team).toBe('payments');
    expect(plan.items.map((i) => `${i.name} ${i.action}`)).toEqual(['ledger unchanged', 'invoices create']);
    expect(await names('payments')).toEqual(['invoices', 'ledger']);
    const dry = (await apply({ file: { jobs: {} }, dryRun: true }).expect(200)).body as Plan;
    expect(dry).toEqual({ dryRun: true, team: 'default', items: [] });
  });

  it("the plan compares with the team's jobs only: a prune leaves another team's jobs, applied or not", async () => {
    const file = { jobs: { invoices: { command: 'invoices.sh', cronExpression: '@daily' } } };
    const plan = (await apply({ file, prune: true }, paymentsAdmin).expect(200)).body as Plan;
    expect(plan.items.map((i) => `${i.name} ${i.action}`)).toEqual(['invoices unchanged', 'ledger delete']);
    expect(await names('payments')).toEqual(['invoices']);
    expect(await names('default')).toEqual(['backup', 'report']);
    // and the other way round: default's prune does not reach payments' applied job
    const back = { jobs: { backup: { command: 'backup.sh --secret-flag', cronExpression: '0 3 * * *' } } };
    const pruned = (await apply({ file: back, prune: true }).expect(200)).body as Plan;
    expect(pruned.items.map((i) => `${i.name} ${i.action}`)).toEqual(['backup unchanged', 'report delete']);
    expect(await names('payments')).toEqual(['invoices']);
  });

  it("a name another team's job has is a 409 that says the name is taken, and nothing else of it; nothing changes", async () => {
    const before = await jobsOf();
    const file = {
      jobs: {
        settlement: { command: 'settle.sh', cronExpression: '@daily' },
        backup: { command: 'mine.sh', cronExpression: '@hourly' },
      },
    };
    for (const dryRun of [true, false]) {
      const res = await apply({ file, dryRun }, paymentsAdmin).expect(409);
      const message = (res.body as { message: string }).message;
      expect(message).toBe(
        "jobs.backup: the name 'backup' is taken by a job of another team (job names are unique across teams)",
      );
    }
    expect(await jobsOf()).toEqual(before);
    // an Orbit admin applying to payments is kept to payments too
    await apply({ file, team: 'payments' }).expect(409);
    expect(await jobsOf()).toEqual(before);
  });

  it("a job of the file may follow only jobs its caller sees: another team's is no job", async () => {
    const file = {
      jobs: { after: { command: 'x', cronExpression: null, triggers: [{ after: 'backup' }] } },
    };
    const res = await apply({ file, dryRun: true }, paymentsAdmin).expect(400);
    expect((res.body as { message: string }).message).toBe("jobs.after: triggers[0].after: no job is named 'backup'");
  });

  it("another team's channel is not the file's: it is neither updated nor shown", async () => {
    const channel = async () =>
      (await t.db.sql(`SELECT settings->>'url' AS url FROM channels WHERE name = 'ops'`)).rows[0] as { url: string };
    const before = await channel();
    const file = { channels: { ops: { type: 'webhook', url: 'http://127.0.0.1:9/elsewhere' } } };
    const res = await apply({ file, dryRun: false }, paymentsAdmin);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1:9/hook');
    expect(await channel()).toEqual(before);
  });

  it("a team that is not the caller's is a 404, a role under admin in the team a 403; nothing changes", async () => {
    const before = await jobsOf();
    const file = { jobs: { sneaky: { command: 'x', cronExpression: '@daily' } } };
    await apply({ file, team: 'default' }, paymentsAdmin).expect(404);
    await apply({ file, team: 'nowhere' }).expect(404);
    await apply({ file }, paymentsOperator).expect(403);
    expect(await jobsOf()).toEqual(before);
  });

  it('a person in several teams names the one the file is for; the role needed is admin there', async () => {
    const file = { jobs: { invoices: { command: 'invoices.sh', cronExpression: '@daily' } } };
    const unnamed = await apply({ file, dryRun: true }, PERSON).expect(400);
    expect((unnamed.body as { message: string }).message).toMatch(/^team is required/);
    await apply({ file, dryRun: true, team: 'default' }, PERSON).expect(403);
    const plan = (await apply({ file, dryRun: true, team: 'payments' }, PERSON).expect(200)).body as Plan;
    expect(plan.items.map((i) => `${i.name} ${i.action}`)).toEqual(['invoices unchanged']);
  });

  describe('GET /orbit-file', () => {
    const exported = async (query: string, token?: string) =>
      (await as(token, 'get', `/orbit-file${query}`).expect(200)).body as { channels: Body; jobs: Body };

    it("answers the caller's teams' jobs and channels, narrowed to `team`", async () => {
      expect(Object.keys((await exported('')).jobs).sort()).toEqual(['backup', 'invoices']);
      expect(Object.keys((await exported('?team=payments')).jobs)).toEqual(['invoices']);
      expect(await exported('?team=default')).toEqual({
        channels: { ops: expect.any(Object) as unknown },
        jobs: { backup: expect.any(Object) as unknown },
      });
      expect(await exported('', paymentsAdmin)).toEqual({
        channels: { 'payments-hooks': expect.any(Object) as unknown },
        jobs: { invoices: { command: 'invoices.sh', cronExpression: '@daily' } },
      });
      expect(await exported('?team=default', paymentsAdmin)).toEqual({ channels: {}, jobs: {} });
    });

    it('applied back to its team, an export changes nothing', async () => {
      const file = await exported('?team=payments', paymentsAdmin);
      // the CLI fills a channel's URL in from the environment: an export names it, never shows it
      expect(file.channels).toEqual({
        'payments-hooks': { type: 'webhook', url: '${ORBIT_CHANNEL_PAYMENTS_HOOKS_URL}' },
      });
      file.channels = { 'payments-hooks': { type: 'webhook', url: 'http://127.0.0.1:9/payments' } };
      const plan = (await apply({ file, team: 'payments', dryRun: true }).expect(200)).body as Plan;
      expect(plan.items.map((i) => i.action)).toEqual(['unchanged', 'unchanged']);
    });

    it('is for admins of the team: a person gets the teams they administer, and is refused a team they only view', async () => {
      await as(paymentsOperator, 'get', '/orbit-file').expect(403);
      await as(paymentsOperator, 'get', '/orbit-file?team=payments').expect(403);
      expect(Object.keys((await exported('', PERSON)).jobs)).toEqual(['invoices']);
      const refused = await as(PERSON, 'get', '/orbit-file?team=default').expect(403);
      expect((refused.body as { message: string }).message).toBe(
        `Exporting the team default needs the admin role there; ${PERSON} has viewer`,
      );
    });
  });
});
