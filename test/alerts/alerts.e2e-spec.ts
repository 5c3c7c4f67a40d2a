import { Writable } from 'node:stream';
import { jest } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { EventConsumers } from '../../src/events/application/event-consumers.js';
import { AlertConsumer, ALERTS_CONSUMER } from '../../src/alerts/application/alert-consumer.js';
import { LeaseReaperService } from '../../src/runtime/application/lease-reaper.service.js';
import { createRootLogger } from '../../src/observability/infrastructure/logging.js';
import type { Schema } from '../support/api-types.js';
import { jobBody, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { watchIdleHeads } from '../support/idle-heads.js';
import { finalExecution, waitFor } from '../support/wait.js';
import { expectInert, slackTexts, startReceiver, startSmtp } from './support.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SLACK_PATH = '/services/T000/B000/XXXXsecretpath';

interface Delivery {
  id: string;
  event: string;
  status: string;
  channelName: string;
  jobId: string | null;
  attempts: Array<{ attempt: number; httpStatus: number | null; smtpResponse: string | null; error: string | null }>;
}
type AlertBody = Record<string, unknown>;

async function sqlRows<T>(node: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return (await node.db.sql(text, params)).rows as T[];
}

/** The alerts consumer's cursor (0 before its first pass). */
async function alertsCursor(node: TestApp): Promise<number> {
  const [row] = await sqlRows<{ after: string }>(
    node,
    `SELECT after_seq AS after FROM event_cursors WHERE consumer = $1`,
    [ALERTS_CONSUMER],
  );
  return Number(row?.after ?? 0);
}

/** Every log line the node writes (nestjs-pino keeps one root logger per file: this app is the first). */
const logLines: string[] = [];
const logger = createRootLogger(
  { logLevel: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  }),
);

describe('alerts', () => {
  let node: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const answers: string[] = [];
  const http = () => request(node.app.getHttpServer());
  const remember = <T extends { text: string }>(response: T) => {
    answers.push(response.text);
    return response;
  };

  beforeAll(async () => {
    receiver = await startReceiver((req, seen) => (req.path === '/flaky' && seen.length <= 3 ? 500 : 200));
    smtp = await startSmtp();
    node = await createTestApp({
      role: 'all',
      logger,
      env: {
        LOG_LEVEL: 'debug',
        ORBIT_ALERTS_ALLOW_PRIVATE: 'true',
        ORBIT_ALERT_RETRY_BASE_MS: '50',
        ORBIT_POLL_INTERVAL_MS: '100',
        ORBIT_RETRY_BACKOFF_BASE_MS: '0',
        ORBIT_SMTP_URL: smtp.url,
        ORBIT_SMTP_FROM: 'orbit@example.com',
      },
    });
  });

  afterAll(async () => {
    await node?.close();
    await receiver?.close();
    await smtp?.close();
  });

  async function channel(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
    return remember(await http().post('/channels').send(body).expect(201)).body;
  }
  async function job(name: string, command: string, extra: JobFields = {}): Promise<Schema<'JobResponse'>> {
    return remember(
      await http()
        .post('/jobs')
        .send(jobBody({ name, command, ...extra }))
        .expect(201),
    ).body;
  }
  async function run(jobId: string): Promise<void> {
    await http().post(`/jobs/${jobId}/executions`).expect(201);
  }
  async function deliveries(query: string): Promise<Delivery[]> {
    return remember(await http().get(`/deliveries?${query}`).expect(200)).body.items;
  }
  /** Waits until the consumer has handled every event written so far and nothing is pending. */
  async function settled(): Promise<void> {
    await waitFor(async () => {
      const [row] = await sqlRows<{ behind: boolean }>(
        node,
        `SELECT (SELECT coalesce(max(seq), 0) FROM events) > coalesce((SELECT after_seq FROM event_cursors WHERE consumer = 'alerts'), 0)
             OR EXISTS (SELECT 1 FROM executions WHERE status IN ('QUEUED', 'RUNNING'))
             OR EXISTS (SELECT 1 FROM deliveries WHERE status = 'PENDING') AS behind`,
      );
      return row?.behind ? undefined : true;
    }, 'the alerts to settle');
  }

  it('a job that fails for good: one signed `failed` delivery per channel; its retried attempt gives none', async () => {
    const named = await channel({ name: 'named-hook', type: 'webhook', url: receiver.url('/named'), secret: SECRET });
    const everyJob = await channel({ name: 'every-job', type: 'webhook', url: receiver.url('/every'), allJobs: {} });
    const failing = await job('fails-for-good', 'echo doomed; exit 3', {
      maxRetries: 1,
      alerts: [{ channel: 'named-hook' }],
    });
    await run(failing.id);
    await settled();
    await http().delete(`/channels/${everyJob.id}`).expect(204);

    for (const path of ['/named', '/every']) expect(receiver.at(path)).toHaveLength(1);
    const [sent] = receiver.at('/named');
    const payload = new Webhook(SECRET).verify(sent!.body, sent!.headers as Record<string, string>) as AlertBody;
    expect(payload).toMatchObject({
      event: 'failed',
      job: { id: failing.id, name: 'fails-for-good' },
      run: { status: 'FAILED', attempt: 2, trigger: 'RETRY', exitCode: 3, output: expect.stringContaining('doomed') },
      links: { run: expect.stringMatching(/\/ui\/executions\/[0-9a-f-]{36}$/) },
    });
    expect(() =>
      new Webhook('whsec_' + Buffer.from('x'.repeat(24)).toString('base64')).verify(
        sent!.body,
        sent!.headers as Record<string, string>,
      ),
    ).toThrow();
    const listed = await deliveries(`channel=${named.id}`);
    expect(listed).toEqual([expect.objectContaining({ event: 'failed', status: 'DELIVERED', jobId: failing.id })]);
    expect(listed[0]!.attempts).toEqual([expect.objectContaining({ attempt: 1, httpStatus: 200, error: null })]);
  });

  it('attempt_failed: every failed attempt, when asked for', async () => {
    await channel({ name: 'attempts-hook', type: 'webhook', url: receiver.url('/attempts') });
    const flaky = await job('fails-twice', 'exit 1', {
      maxRetries: 1,
      alerts: [{ channel: 'attempts-hook', on: ['attempt_failed'] }],
    });
    await run(flaky.id);
    await settled();
    const events = receiver
      .at('/attempts')
      .map((r) => JSON.parse(r.body) as { event: string; run: { attempt: number } });
    expect(events.map((e) => [e.event, e.run.attempt]).sort()).toEqual([
      ['attempt_failed', 1],
      ['attempt_failed', 2],
    ]);
  });

  it('recovered: once, on the first success after a failure, not on later successes', async () => {
    await channel({ name: 'recovery-hook', type: 'webhook', url: receiver.url('/recovered') });
    const mark = `/tmp/orbit-alerts-recovered-${process.pid}-${Date.now()}`;
    const recovering = await job('recovers', `[ -f ${mark} ] || { touch ${mark}; exit 1; }`, {
      alerts: [{ channel: 'recovery-hook', on: ['recovered'] }],
    });
    for (let i = 0; i < 3; i++) {
      await run(recovering.id);
      await settled();
    }
    expect(receiver.at('/recovered').map((r) => (JSON.parse(r.body) as { event: string }).event)).toEqual([
      'recovered',
    ]);
  });

  it("worker_lost: a run whose worker vanished, told by the failure's cause", async () => {
    await channel({ name: 'lost-hook', type: 'webhook', url: receiver.url('/lost') });
    const lost = await job('loses-its-worker', 'sleep 30', { alerts: [{ channel: 'lost-hook', on: ['worker_lost'] }] });
    const { body: execution } = await http().post(`/jobs/${lost.id}/executions`).expect(201);
    await waitFor(async () => {
      const { body } = await http().get(`/executions/${execution.id}`).expect(200);
      return body.status === 'RUNNING' ? true : undefined;
    }, 'the run to start');
    // its worker vanishes: the lease runs out, and nobody renews it
    await sqlRows(
      node,
      `UPDATE executions SET worker_id = 'vanished-worker', lease_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [execution.id],
    );
    expect(await node.app.get(LeaseReaperService).sweep()).toBe(1);
    await settled();
    const bodies = receiver
      .at('/lost')
      .map((r) => JSON.parse(r.body) as { event: string; run: { errorMessage: string } });
    expect(bodies).toEqual([
      expect.objectContaining({
        event: 'worker_lost',
        run: expect.objectContaining({ errorMessage: 'Worker lost: lease expired' }),
      }),
    ]);
  });

  it('a receiver answering 500 three times, then 200: delivered, one webhook-id over the four attempts, each listed', async () => {
    const flaky = await channel({ name: 'flaky-hook', type: 'webhook', url: receiver.url('/flaky'), secret: SECRET });
    const first = remember(await http().post(`/channels/${flaky.id}/test`).expect(200)).body;
    expect(first).toMatchObject({
      status: 'PENDING',
      event: 'test',
      attempts: [expect.objectContaining({ httpStatus: 500 })],
    });
    await settled();
    const ids = new Set(receiver.at('/flaky').map((r) => r.headers['webhook-id']));
    expect(receiver.at('/flaky')).toHaveLength(4);
    expect([...ids]).toEqual([`msg_${first.id}`]);
    const [delivered] = await deliveries(`channel=${flaky.id}`);
    expect(delivered).toMatchObject({ id: first.id, status: 'DELIVERED' });
    expect(delivered!.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 500, 200]);
    expect(delivered!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('email arrives at the SMTP server with the job name in the subject; slack gets text and blocks, inert', async () => {
    await channel({ name: 'oncall-mail', type: 'email', to: ['oncall@example.com'] });
    await channel({ name: 'team-slack', type: 'slack', url: receiver.url(SLACK_PATH) });
    // output that closes a code block, mentions everyone and disguises a link
    const hostile = "echo '```'; echo '<!channel> <https://evil.example/|sign in again>'; echo '```'; exit 2";
    const mailed = await job('mailed-job', hostile, {
      alerts: [{ channel: 'oncall-mail' }, { channel: 'team-slack' }],
    });
    await run(mailed.id);
    await settled();
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.subject).toContain('mailed-job');
    expect(smtp.mails[0]!.to).toMatchObject({ text: 'oncall@example.com' });
    const [slack] = receiver.at(SLACK_PATH);
    const message = JSON.parse(slack!.body) as unknown;
    expect(message).toMatchObject({
      text: expect.stringContaining('mailed-job'),
      blocks: expect.any(Array),
    });
    const texts = slackTexts(message);
    expectInert(texts);
    expect(texts.filter((t) => t.text.includes('<!channel>'))).toEqual([
      {
        markup: false,
        text: '```\n<!channel> <https://evil.example/|sign in again>\n```\n',
        within: 'rich_text_preformatted',
      },
    ]);
    const [mail] = await deliveries(`jobId=${mailed.id}&status=DELIVERED`).then((all) =>
      all.filter((d) => d.channelName === 'oncall-mail'),
    );
    expect(mail!.attempts[0]!.smtpResponse).toMatch(/^250/);
  });

  it('bad input: 400 naming the field, an unknown channel named; a named channel cannot be deleted', async () => {
    const bad = await http()
      .post('/jobs')
      .send({ name: 'x', command: 'true', cronExpression: '0 0 1 1 *', alerts: [{ channel: 'nope' }] })
      .expect(400);
    expect(bad.body.message).toContain("alerts[0].channel: the team default has no channel named 'nope'");
    const badOn = await http()
      .post('/channels')
      .send({ name: 'bad-on', type: 'webhook', url: receiver.url('/x'), allJobs: { on: ['exploded'] } })
      .expect(400);
    expect(badOn.body.message).toContain('allJobs.on');
    expect(
      (await http().post('/channels').send({ name: 'bad-url', type: 'webhook', url: 'ftp://example.com' }).expect(400))
        .body.message,
    ).toContain('url');
    expect(
      (
        await http()
          .post('/channels')
          .send({ name: 'bad-secret', type: 'webhook', url: receiver.url('/x'), secret: 'abc' })
          .expect(400)
      ).body.message,
    ).toContain('secret');
    expect(
      (
        await http()
          .post('/channels')
          .send({ name: 'named-hook', type: 'email', to: ['a@example.com'] })
          .expect(409)
      ).body.message,
    ).toContain('named-hook');
    const [named] = (await http().get('/channels?limit=100').expect(200)).body.items.filter(
      (c: { name: string }) => c.name === 'named-hook',
    );
    expect((await http().delete(`/channels/${named.id}`).expect(409)).body.message).toContain('fails-for-good');
  });

  it('169.254.169.254 is refused even with private targets allowed', async () => {
    const refused = await http()
      .post('/channels')
      .send({ name: 'metadata', type: 'webhook', url: 'http://169.254.169.254/latest' })
      .expect(400);
    expect(refused.body.message).toContain('link-local');
    await http().post('/channels').send({ name: 'metadata6', type: 'slack', url: 'http://[fe80::1]/x' }).expect(400);
  });

  it.each([
    ['http://[::127.0.0.1]:9/x', 'non-global'],
    ['http://[64:ff9b::169.254.169.254]/latest', 'link-local'],
    ['http://[2002:a9fe:a9fe::1]/latest', 'link-local'],
    ['http://[100::1]/x', 'discard'],
  ])('%s, an IPv6 form of a refused address, is refused with private targets allowed', async (url, reason) => {
    const refused = await http().post('/channels').send({ name: 'embedded', type: 'webhook', url }).expect(400);
    expect(refused.body.message).toContain(reason);
  });

  it('no secret in any answer, audit entry or log line', async () => {
    const audit = remember(await http().get('/audit?limit=100').expect(200));
    expect(audit.body.items.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['channel.created', 'channel.deleted', 'channel.tested']),
    );
    const listed = remember(await http().get('/channels?limit=100').expect(200));
    expect(listed.body.items.find((c: { name: string }) => c.name === 'team-slack').settings).toEqual({
      url: expect.not.stringContaining('secretpath'),
    });
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...answers, ...logLines]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SECRET.slice('whsec_'.length));
      expect(text).not.toContain('secretpath');
    }
  });
});

describe('alert targets without ORBIT_ALERTS_ALLOW_PRIVATE', () => {
  let node: TestApp;
  beforeAll(async () => {
    node = await createTestApp();
  });
  afterAll(async () => {
    await node?.close();
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://127.0.0.1:9/hook', 'ORBIT_ALERTS_ALLOW_PRIVATE'],
    ['http://localhost:9/hook', 'localhost resolves to'],
    ['http://10.1.2.3/hook', 'private'],
  ])('%s is refused (400 naming url)', async (url, reason) => {
    const refused = await request(node.app.getHttpServer())
      .post('/channels')
      .send({ name: 'refused', type: 'webhook', url })
      .expect(400);
    expect(refused.body.message).toMatch(/^url/);
    expect(refused.body.message).toContain(reason);
  });

  it.each([
    'https://example.com/services/T000/B000/XXXX',
    'http://hooks.slack.com/services/T000/B000/XXXX',
    'https://hooks.slack.com.example.net/services/T000/B000/XXXX',
  ])('a slack channel posting to %s, not Slack over https, is refused (400 naming url)', async (url) => {
    const refused = await request(node.app.getHttpServer())
      .post('/channels')
      .send({ name: 'not-slack', type: 'slack', url })
      .expect(400);
    expect(refused.body.message).toMatch(
      /^url of a slack channel must be an incoming webhook on https:\/\/hooks\.slack\.com\//,
    );
  });
});

describe('the alerts consumer after a crash', () => {
  // role api: no consumer loop of its own, so the test drives every pass
  let node: TestApp;
  const http = () => request(node.app.getHttpServer());
  beforeAll(async () => {
    node = await createTestApp({ env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await node?.close();
  });

  it('a handler failure leaves no delivery and the cursor unmoved; the next pass writes each delivery once', async () => {
    await http()
      .post('/channels')
      .send({ name: 'crash-hook', type: 'webhook', url: 'http://127.0.0.1:9/crash' })
      .expect(201);
    const { body: job } = await http()
      .post('/jobs')
      .send({ name: 'crash-job', command: 'true', cronExpression: '0 0 1 1 *', alerts: [{ channel: 'crash-hook' }] })
      .expect(201);
    const { body: execution } = await http().post(`/jobs/${job.id}/executions`).expect(201);
    await http().post(`/executions/${execution.id}/start`).send({}).expect(200);
    await http().post(`/executions/${execution.id}/fail`).send({ exitCode: 1, errorMessage: 'broken' }).expect(200);
    const consumers = node.app.get(EventConsumers);
    const consumer = node.app.get(AlertConsumer);
    const cursor = () => alertsCursor(node);
    const deliveryCount = async () =>
      Number((await sqlRows<{ n: string }>(node, `SELECT count(*) AS n FROM deliveries`))[0]!.n);

    let written = 0;
    const crashing = consumers.consume(ALERTS_CONSUMER, 1000, async (events) => {
      written = await consumer.handle(events);
      throw new Error('crash between the writes and the cursor');
    });
    await expect(crashing).rejects.toThrow('crash between');
    expect(written).toBe(1);
    expect(await deliveryCount()).toBe(0);
    expect(await cursor()).toBe(0);

    await consumers.consume(ALERTS_CONSUMER, 1000, async (events) => void (await consumer.handle(events)));
    expect(await deliveryCount()).toBe(1);
    expect(await cursor()).toBeGreaterThan(0);
    expect(await consumers.consume(ALERTS_CONSUMER, 1000, async (events) => void (await consumer.handle(events)))).toBe(
      0,
    );
    expect(await deliveryCount()).toBe(1);
  });
});

describe('the alerts consumer without any channel', () => {
  let node: TestApp;
  const http = () => request(node.app.getHttpServer());
  beforeAll(async () => {
    node = await createTestApp({
      role: 'all',
      env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true', ORBIT_POLL_INTERVAL_MS: '200' },
    });
  });
  afterAll(async () => {
    await node?.close();
  });

  const head = async () => Number((await sqlRows<{ seq: string }>(node, `SELECT max(seq) AS seq FROM events`))[0]!.seq);
  const failedRun = async (jobId: string) => {
    const { body } = await http().post(`/jobs/${jobId}/executions`).expect(201);
    expect((await finalExecution((path) => http().get(path), body.id)).status).toBe('FAILED');
    return body.id as string;
  };

  it('reads nothing while idle; the first channel is alerted for what comes after it', async () => {
    const handle = jest.spyOn(node.app.get(AlertConsumer), 'handle');
    const { body: job } = await http()
      .post('/jobs')
      .send({ name: 'quiet-job', command: 'exit 1', cronExpression: '0 0 1 1 *' })
      .expect(201);
    const idleHeadOf = watchIdleHeads(node.app.get(EventConsumers));
    await failedRun(job.id);
    const last = await head();
    await waitFor(() => (idleHeadOf(ALERTS_CONSUMER) >= last ? true : undefined), 'an idle pass past the failure');
    expect(handle).not.toHaveBeenCalled();

    await http()
      .post('/channels')
      .send({ name: 'first-hook', type: 'webhook', url: 'http://127.0.0.1:9/first' })
      .expect(201);
    await http()
      .patch(`/jobs/${job.id}`)
      .send({ alerts: [{ channel: 'first-hook' }] })
      .expect(200);
    const alerted = await failedRun(job.id);
    const deliveries = await waitFor(async () => {
      const rows = await sqlRows<{ execution: string }>(node, `SELECT execution_id AS execution FROM deliveries`);
      return rows.length > 0 ? rows : undefined;
    }, 'the failure after the channel to be delivered');
    expect(deliveries).toEqual([{ execution: alerted }]);
    expect(handle).toHaveBeenCalled();
    await waitFor(
      async () => ((await alertsCursor(node)) >= last ? true : undefined),
      'the cursor to move past the idle head',
    );
  });
});
