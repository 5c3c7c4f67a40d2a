import request from 'supertest';
import { AlertDelivery } from '../../src/alerts/application/alert-delivery.js';
import { RetentionService } from '../../src/runtime/application/retention.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { insertRuns } from '../support/finished-runs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { expectErrorBody } from '../support/error-body.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';
import { slackTexts, startReceiver, startSmtp } from './support.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const INTERVAL = 10 * MINUTE;
const NOW = new Date('2026-11-30T10:00:00.000Z');
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);
const ALL_RETENTION = ['retention_failed', 'retention_behind', 'retention_recovered'];
/** What PostgreSQL says when the disk is full, raised by a trigger on the statement retention runs. */
const DISK_FULL = 'could not extend file "base/16384/16397": No space left on device';

describe('retention alerts', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let db: TestDatabase;
  let api: TestApp;
  let nodes: TestApp[];
  let clock: FakeClock;

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await receiver?.close();
    await smtp?.close();
  });

  /** An API node and `count` nodes with the runtime, on one database; no loop runs: the test drives the passes. */
  async function cluster(count = 1, settings: Record<string, string> = {}): Promise<void> {
    clock = new FakeClock(NOW);
    db = await createTestDatabase();
    const env = {
      ORBIT_ALERTS_ALLOW_PRIVATE: 'true',
      ORBIT_SMTP_URL: smtp.url,
      ORBIT_SMTP_FROM: 'orbit@example.com',
      ORBIT_RETENTION_DAYS: '30',
      ORBIT_RETENTION_KEEP_PER_JOB: '1',
      ORBIT_RETENTION_INTERVAL_SECONDS: String(INTERVAL / 1000),
      ...settings,
    };
    api = await createTestApp({ db, env });
    nodes = [];
    for (let i = 0; i < count; i++) nodes.push(await createTestApp({ db, role: 'all', init: false, clock, env }));
  }

  afterEach(async () => {
    for (const node of [...nodes, api]) await node?.close();
    await db?.drop();
    receiver.received.length = 0;
    smtp.mails.length = 0;
  });

  const http = () => request(api.app.getHttpServer());
  const sweep = (node = nodes[0]!) => node.app.get(RetentionService).sweep();
  /**
   * One pass of the delivery loop of the first node, which sends every delivery due; then again
   * what an attempt failed to send (a kept-alive connection the receiver was closing just then),
   * rather than wait for its retry.
   */
  async function deliver(): Promise<void> {
    const delivery = nodes[0]!.app.get(AlertDelivery);
    const signal = new AbortController().signal;
    await delivery.pass(signal);
    for (let again = 0; again < 3; again++) {
      const { rows } = await db.sql(`SELECT id FROM deliveries WHERE status = 'PENDING'`);
      if (rows.length === 0) return;
      for (const { id } of rows as { id: string }[]) {
        const claimed = await delivery.claim(id);
        if (claimed) await delivery.attempt(claimed, signal);
      }
    }
    throw new Error('deliveries still pending after three more attempts');
  }
  const bodies = (path: string) => receiver.at(path).map((sent) => JSON.parse(sent.body) as Record<string, unknown>);
  const events = (path: string) => bodies(path).map((body) => body.event);
  const deliveryRows = async () =>
    (await db.sql(`SELECT event, job_id FROM deliveries ORDER BY created_at, event`)).rows as {
      event: string;
      job_id: string | null;
    }[];

  async function channel(body: Record<string, unknown>): Promise<void> {
    await http().post('/channels').send(body).expect(201);
  }

  /** A job with finished runs created 90, 80 and 70 days ago: the newest is kept, the other two are retention's. */
  async function oldRuns(): Promise<string[]> {
    const jobId = await insertJob(db, { name: `old-${Math.random()}` });
    return insertRuns(db, jobId, [ago(90 * DAY), ago(80 * DAY), ago(70 * DAY)]);
  }

  /** Every DELETE of an execution fails, as the disk being full would make it. */
  async function breakDeletes(): Promise<void> {
    await db.sql(`CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
                  BEGIN RAISE EXCEPTION '${DISK_FULL}'; END $$`);
    await db.sql(`CREATE TRIGGER test_disk_full BEFORE DELETE ON executions
                  FOR EACH ROW EXECUTE FUNCTION test_disk_full()`);
  }
  async function repairDeletes(): Promise<void> {
    await db.sql(`DROP TRIGGER test_disk_full ON executions`);
    await db.sql(`DROP FUNCTION test_disk_full()`);
  }

  it('a failing pass alerts once per streak, by webhook, Slack and email, with its error and what to do; the first success after it gives the all-clear', async () => {
    await cluster();
    await channel({ name: 'ops-hook', type: 'webhook', url: receiver.url('/hook'), allJobs: { on: ALL_RETENTION } });
    await channel({ name: 'ops-slack', type: 'slack', url: receiver.url('/slack'), allJobs: { on: ALL_RETENTION } });
    await channel({ name: 'ops-mail', type: 'email', to: ['ops@example.com'], allJobs: { on: ['retention_failed'] } });
    await channel({ name: 'jobs-only', type: 'webhook', url: receiver.url('/jobs-only'), allJobs: { on: ['failed'] } });
    const [oldest, older, kept] = await oldRuns();
    await breakDeletes();

    await expect(sweep()).rejects.toThrow(DISK_FULL);
    await deliver();

    expect(bodies('/hook')).toEqual([
      {
        event: 'retention_failed',
        timestamp: NOW.toISOString(),
        job: null,
        slot: null,
        run: null,
        links: { dashboard: expect.stringMatching(/\/ui\/$/), job: null, run: null },
        retention: {
          passEndedAt: NOW.toISOString(),
          error: DISK_FULL,
          failingSince: NOW.toISOString(),
          lastSuccessAt: null,
          oldestOverdueFinishedAt: null,
          behindSeconds: 0,
          rule: { days: 30, keepPerJob: 1, intervalSeconds: INTERVAL / 1000 },
          todo: expect.stringContaining('Read the error'),
        },
      },
    ]);
    const slack = slackTexts(JSON.parse(receiver.at('/slack')[0]!.body)).map((text) => text.text);
    expect(slack).toEqual(
      expect.arrayContaining([
        'Orbit: retention passes fail',
        expect.stringMatching(
          new RegExp(`Pass ended: ${NOW.toISOString()}[\\s\\S]*Error: ${DISK_FULL}[\\s\\S]*What to do: Retention`),
        ),
      ]),
    );
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.subject).toBe('Orbit: retention passes fail');
    expect(smtp.mails[0]!.text).toContain(`Error: ${DISK_FULL}`);
    expect(smtp.mails[0]!.text).toContain(`Failing since: ${NOW.toISOString()}`);
    expect(smtp.mails[0]!.text).toContain('What to do: Retention passes fail');
    expect(receiver.at('/jobs-only')).toEqual([]);
    const listed = (await http().get('/deliveries?status=DELIVERED').expect(200)).body.items as Record<
      string,
      unknown
    >[];
    expect(listed.map(({ event, jobId, executionId }) => ({ event, jobId, executionId }))).toEqual(
      Array(3).fill({ event: 'retention_failed', jobId: null, executionId: null }),
    );

    // the streak goes on: no second alert, however many passes fail
    for (let i = 0; i < 2; i++) {
      clock.advance(INTERVAL);
      await expect(sweep()).rejects.toThrow(DISK_FULL);
    }
    await deliver();
    expect(await deliveryRows()).toHaveLength(3);
    expect(events('/hook')).toEqual(['retention_failed']);
    const { rows: stillThere } = await db.sql(`SELECT id FROM executions WHERE id = ANY ($1::uuid[])`, [
      [oldest, older, kept],
    ]);
    expect(stillThere).toHaveLength(3);

    await repairDeletes();
    clock.advance(INTERVAL);
    const recoveredAt = clock.now().toISOString();
    expect((await sweep()).deleted).toBe(2);
    await deliver();
    expect(events('/hook')).toEqual(['retention_failed', 'retention_recovered']);
    expect(bodies('/hook')[1]!.retention).toEqual({
      passEndedAt: recoveredAt,
      error: null,
      failingSince: null,
      lastSuccessAt: recoveredAt,
      oldestOverdueFinishedAt: null,
      behindSeconds: 0,
      rule: { days: 30, keepPerJob: 1, intervalSeconds: INTERVAL / 1000 },
      todo: expect.stringMatching(/^Nothing/),
    });
    expect(receiver.at('/slack')).toHaveLength(2);
    expect(smtp.mails).toHaveLength(1); // it asked for retention_failed only

    // healthy passes tell nothing
    clock.advance(INTERVAL);
    await sweep();
    await deliver();
    expect(await deliveryRows()).toHaveLength(5);
  });

  it('a pass that leaves a run two intervals past its deletion time alerts `retention_behind` once, and `retention_recovered` once it is gone; /metrics says by how much', async () => {
    await cluster();
    await channel({ name: 'ops-hook', type: 'webhook', url: receiver.url('/hook'), allJobs: { on: ALL_RETENTION } });
    const jobId = await insertJob(db, { name: 'held' });
    // due for deletion at NOW - 2 intervals - 1 minute (finished a minute after creation, kept 30 days)
    const dueAt = ago(2 * INTERVAL + MINUTE);
    const createdAt = new Date(dueAt.getTime() - 30 * DAY - MINUTE);
    const [held] = await insertRuns(db, jobId, [createdAt, ago(DAY)]);
    const behindSeconds = async () => {
      const { text } = await http().get('/metrics').expect(200);
      return Number(/^orbit_retention_behind_seconds (\S+)$/m.exec(text)?.[1]);
    };

    // a transaction holds the run: every batch skips it
    await db.sql('BEGIN');
    try {
      await db.sql('SELECT id FROM executions WHERE id = $1 FOR UPDATE', [held]);

      // exactly two intervals and a minute late at NOW: one minute earlier, it was not behind yet
      clock.set(new Date(NOW.getTime() - 2 * MINUTE));
      expect((await sweep()).deleted).toBe(0);
      await deliver();
      expect(receiver.at('/hook')).toEqual([]);
      expect(await behindSeconds()).toBe((2 * INTERVAL - MINUTE) / 1000);

      clock.set(NOW);
      await sweep();
      clock.advance(INTERVAL);
      await sweep();
      await deliver();
      expect(events('/hook')).toEqual(['retention_behind']);
      expect(bodies('/hook')[0]!.retention).toEqual({
        passEndedAt: NOW.toISOString(),
        error: null,
        failingSince: null,
        lastSuccessAt: NOW.toISOString(),
        oldestOverdueFinishedAt: new Date(dueAt.getTime() - 30 * DAY).toISOString(),
        behindSeconds: (2 * INTERVAL + MINUTE) / 1000,
        rule: { days: 30, keepPerJob: 1, intervalSeconds: INTERVAL / 1000 },
        todo: expect.stringContaining('pg_stat_activity'),
      });
      expect(await behindSeconds()).toBe((3 * INTERVAL + MINUTE) / 1000);
    } finally {
      await db.sql('ROLLBACK');
    }

    clock.advance(INTERVAL);
    expect((await sweep()).deleted).toBe(1);
    await deliver();
    expect(events('/hook')).toEqual(['retention_behind', 'retention_recovered']);
    expect(await behindSeconds()).toBe(0);
  });

  it('two nodes sweeping at once tell a failure streak once, being behind once, and each end once', async () => {
    // batches of one: each node's batch finds a run the other does not hold, so both fail
    await cluster(2, { ORBIT_RETENTION_BATCH_SIZE: '1' });
    await channel({ name: 'ops-hook', type: 'webhook', url: receiver.url('/hook'), allJobs: { on: ALL_RETENTION } });
    const oldJob = await insertJob(db, { name: 'old' });
    const days = (from: number, count: number) => Array.from({ length: count }, (_, i) => ago((from - i) * DAY));
    await insertRuns(db, oldJob, days(90, 10));
    await breakDeletes();
    const sweepBoth = async () => {
      const outcomes = await Promise.allSettled(nodes.map((node) => sweep(node)));
      clock.advance(INTERVAL);
      return outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.deleted : 'failed'));
    };

    for (let pass = 0; pass < 3; pass++) expect(await sweepBoth()).toEqual(['failed', 'failed']);
    expect(await deliveryRows()).toEqual([{ event: 'retention_failed', job_id: null }]);

    await repairDeletes();
    expect((await sweepBoth()).reduce((a, b) => Number(a) + Number(b))).toBe(9);
    expect((await deliveryRows()).map((row) => row.event)).toEqual(['retention_failed', 'retention_recovered']);

    const [held] = await insertRuns(db, await insertJob(db, { name: 'held' }), days(60, 3));
    await db.sql('BEGIN');
    try {
      await db.sql('SELECT id FROM executions WHERE id = $1 FOR UPDATE', [held]);
      for (let pass = 0; pass < 2; pass++) await sweepBoth();
    } finally {
      await db.sql('ROLLBACK');
    }
    await sweepBoth();
    const told = ['retention_failed', 'retention_recovered', 'retention_behind', 'retention_recovered'];
    expect((await deliveryRows()).map((row) => row.event)).toEqual(told);
    await deliver(); // all at once: they may arrive in any order
    expect(events('/hook').sort()).toEqual([...told].sort());
  });

  it("a channel's allJobs.on takes the cluster's events, over the API and in an orbit file; a job's rule refuses them, naming where they belong", async () => {
    await cluster(0);
    const created = await http()
      .post('/channels')
      .send({
        name: 'ops',
        type: 'webhook',
        url: receiver.url('/ops'),
        allJobs: { on: ['failed', 'retention_behind'] },
      })
      .expect(201);
    expect(created.body.allJobs).toEqual({ on: ['failed', 'retention_behind'] });
    const file = {
      channels: { 'ops-file': { type: 'webhook', url: receiver.url('/file'), allJobs: { on: ALL_RETENTION } } },
    };
    await http().post('/apply').send({ file }).expect(200);
    const { body: channels } = await http().get('/channels').expect(200);
    expect(channels.items.find((c: { name: string }) => c.name === 'ops-file').allJobs).toEqual({ on: ALL_RETENTION });

    const refusal = `alerts[0].on: retention_failed is about the whole cluster, not a job: name it in a channel's allJobs.on`;
    const job = { command: 'true', cronExpression: '0 3 * * *' };
    const onJob = await http()
      .post('/jobs')
      .send({ name: 'nightly', ...job, alerts: [{ channel: 'ops', on: ['failed', 'retention_failed'] }] })
      .expect(400);
    expectErrorBody(onJob.body, 400, 'Bad Request', refusal);
    expect(onJob.body.field).toBe('alerts[0].on');
    const inFile = await http()
      .post('/apply')
      .send({ file: { jobs: { nightly: { ...job, alerts: [{ channel: 'ops', on: ['retention_failed'] }] } } } })
      .expect(400);
    expect(inFile.body.message).toBe(`jobs.nightly: ${refusal}`);
    const typo = await http()
      .post('/channels')
      .send({ name: 'typo', type: 'webhook', url: receiver.url('/typo'), allJobs: { on: ['retention_late'] } })
      .expect(400);
    expect(typo.body.message).toContain('retention_behind');
    expect((await http().get('/jobs').expect(200)).body.items).toEqual([]);
  });
});
