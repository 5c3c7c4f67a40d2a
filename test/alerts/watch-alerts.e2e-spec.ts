import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { EventLog } from '../../src/events/application/event-log.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { startReceiver } from './support.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ENV = {
  ORBIT_ALERTS_ALLOW_PRIVATE: 'true',
  ORBIT_POLL_INTERVAL_MS: '100',
  ORBIT_ALERT_RETRY_BASE_MS: '50',
};

interface Alert {
  event: string;
  job: { id: string; name: string };
  slot: string | null;
  run: { id: string; status: string } | null;
}

/** A 6-field cron that fires once a year, at the whole second `at` (UTC). */
function cronAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}

describe('alerts on late slots, long runs and missed slots', () => {
  let db: TestDatabase;
  let api: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const nodes: TestApp[] = [];
  const http = () => request(api.app.getHttpServer());
  const alertsAt = (path: string) =>
    receiver.at(path).map((r) => new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>) as Alert);

  beforeAll(async () => {
    receiver = await startReceiver();
    db = await createTestDatabase();
    api = await createTestApp({ db, env: ENV });
  });

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.close()));
    await api?.close();
    await db?.drop();
    await receiver?.close();
  });

  async function runtimeNode(): Promise<TestApp> {
    const node = await createTestApp({ db, role: 'all', env: ENV });
    nodes.push(node);
    return node;
  }

  async function channel(name: string, path: string): Promise<void> {
    await http()
      .post('/channels')
      .send({ name, type: 'webhook', url: receiver.url(path), secret: SECRET })
      .expect(201);
  }

  it('late: a slot nobody ran (no worker, no scheduler alive) is told once, by one of the nodes that come back', async () => {
    await channel('late-hook', '/late');
    const slot = new Date(Math.ceil((Date.now() + 2_000) / 1000) * 1000);
    const { body: job } = await http()
      .post('/jobs')
      .send({
        name: 'watched-nightly',
        command: 'true',
        cronExpression: cronAt(slot),
        lateAfterSeconds: 1,
        alerts: [{ channel: 'late-hook', on: ['late'] }],
      })
      .expect(201);
    expect(job).toMatchObject({ lateAfterSeconds: 1, maxDurationSeconds: null });
    // only an api node is up at the slot and its deadline: nothing runs, nothing watches
    await waitFor(() => (Date.now() > slot.getTime() + 1_500 ? true : undefined), 'the deadline to pass');
    expect(receiver.at('/late')).toHaveLength(0);

    await Promise.all([runtimeNode(), runtimeNode()]);
    await waitFor(() => (receiver.at('/late').length > 0 ? true : undefined), 'the late alert');
    const [late] = alertsAt('/late');
    expect(late).toMatchObject({
      event: 'late',
      job: { id: job.id, name: 'watched-nightly' },
      slot: slot.toISOString(),
      run: null,
    });
    // the two nodes watched at once, and a second pass of both finds nothing more
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.at('/late')).toHaveLength(1);
    const { rows } = await db.sql(`SELECT count(*)::int AS n FROM events WHERE type = 'slot.late' AND job_id = $1`, [
      job.id,
    ]);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('no late alert for a slot whose run started in time', async () => {
    await channel('in-time-hook', '/in-time');
    const slot = new Date(Math.ceil((Date.now() + 2_000) / 1000) * 1000);
    const { body: job } = await http()
      .post('/jobs')
      .send({
        name: 'runs-in-time',
        command: 'true',
        cronExpression: cronAt(slot),
        lateAfterSeconds: 5,
        alerts: [{ channel: 'in-time-hook', on: ['late'] }],
      })
      .expect(201);
    await waitFor(async () => {
      const { rows } = await db.sql(`SELECT 1 FROM job_late_watches WHERE job_id = $1 AND slot > $2`, [job.id, slot]);
      return rows.length > 0 ? true : undefined;
    }, 'the watch to move past the slot');
    const { rows } = await db.sql(`SELECT started_at FROM executions WHERE job_id = $1`, [job.id]);
    expect(rows).toHaveLength(1);
    expect(receiver.at('/in-time')).toHaveLength(0);
  });

  it('long_running: a run still running past maxDurationSeconds is told once, with the run, and runs on', async () => {
    await channel('long-hook', '/long');
    const { body: job } = await http()
      .post('/jobs')
      .send({
        name: 'sleeps-too-long',
        command: 'sleep 3',
        cronExpression: '0 0 1 1 *',
        maxDurationSeconds: 1,
        alerts: [{ channel: 'long-hook', on: ['long_running', 'succeeded'] }],
      })
      .expect(201);
    const { body: execution } = await http().post(`/jobs/${job.id}/executions`).expect(201);
    expect(execution.maxDurationSeconds).toBe(1);
    await waitFor(() => (receiver.at('/long').length >= 2 ? true : undefined), 'the long_running and succeeded alerts');
    const alerts = alertsAt('/long');
    expect(alerts.map((alert) => alert.event)).toEqual(['long_running', 'succeeded']);
    expect(alerts[0]).toMatchObject({
      job: { id: job.id, name: 'sleeps-too-long' },
      run: { id: execution.id, status: 'RUNNING' },
    });
    expect(alerts[1]!.run).toMatchObject({ id: execution.id, status: 'SUCCEEDED' });
  });

  it('missed: slots missed while no scheduler ran, and a slot FORBID skipped with the run that was active', async () => {
    await channel('missed-hook', '/missed');
    const { body: job } = await http()
      .post('/jobs')
      .send({
        name: 'misses-slots',
        command: 'true',
        cronExpression: '0 * * * *',
        alerts: [{ channel: 'missed-hook', on: ['missed'] }],
      })
      .expect(201);
    const { body: active } = await http().post(`/jobs/${job.id}/executions`).expect(201);
    const missedSlot = new Date('2026-12-01T09:00:00.000Z');
    const skippedSlot = new Date('2026-12-01T10:00:00.000Z');
    await api.app.get(EventLog).append([
      {
        type: 'slot.missed',
        at: new Date(),
        jobId: job.id,
        slot: missedSlot,
        detail: { policy: 'SKIP', slots: [missedSlot.toISOString()] },
      },
      {
        type: 'slot.skipped',
        at: new Date(),
        jobId: job.id,
        slot: skippedSlot,
        detail: { activeExecutionId: active.id, activeStatus: 'RUNNING' },
      },
    ]);
    await waitFor(() => (receiver.at('/missed').length >= 2 ? true : undefined), 'the missed alerts');
    const alerts = alertsAt('/missed').sort((a, b) => (a.slot! < b.slot! ? -1 : 1));
    expect(alerts).toEqual([
      expect.objectContaining({ event: 'missed', slot: missedSlot.toISOString(), run: null }),
      expect.objectContaining({
        event: 'missed',
        slot: skippedSlot.toISOString(),
        run: expect.objectContaining({ id: active.id }),
      }),
    ]);
  });
});
