import { randomUUID } from 'node:crypto';
import { AlertRetention } from '../../src/alerts/application/alert-retention.js';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-30T10:00:00.000Z');
const ago = (days: number): Date => new Date(NOW.getTime() - days * DAY);

describe('retention of deliveries, their attempts and the alert job states', () => {
  let t: TestApp;
  let channelId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_RETENTION_DAYS: '30', ORBIT_RETENTION_BATCH_SIZE: '2' } });
    channelId = randomUUID();
    await t.db.sql(
      `INSERT INTO channels (id, name, type, settings, created_at, updated_at, version)
       VALUES ($1, 'kept-hook', 'webhook', '{"url": "http://127.0.0.1:1/"}', $2, $2, 1)`,
      [channelId, ago(100)],
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  async function delivery(status: 'PENDING' | 'DELIVERED' | 'FAILED', createdAt: Date, finishedAt: Date | null) {
    const id = randomUUID();
    await t.db.sql(
      `INSERT INTO deliveries (id, channel_id, event, payload, status, attempts, next_attempt_at, give_up_at,
                               created_at, finished_at)
       VALUES ($1, $2, 'failed', '{}', $3, 1, $4, $4, $4, $5)`,
      [id, channelId, status, createdAt, finishedAt],
    );
    await t.db.sql(`INSERT INTO delivery_attempts (delivery_id, attempt, at, latency_ms) VALUES ($1, 1, $2, 5)`, [
      id,
      createdAt,
    ]);
    return id;
  }

  async function jobState(jobId: string, failing: boolean, updatedAt: Date): Promise<void> {
    await t.db.sql(`INSERT INTO alert_job_states (job_id, failing, updated_at) VALUES ($1, $2, $3)`, [
      jobId,
      failing,
      updatedAt,
    ]);
  }

  it('deletes finished deliveries older than the days, with their attempts, in batches; keeps pending and recent ones', async () => {
    const old = [
      await delivery('DELIVERED', ago(40), ago(40)),
      await delivery('FAILED', ago(35), ago(31)),
      await delivery('DELIVERED', ago(32), ago(32)),
    ];
    const kept = [
      await delivery('PENDING', ago(60), null),
      await delivery('FAILED', ago(31), ago(29)),
      await delivery('DELIVERED', ago(1), ago(1)),
    ];

    const result = await t.app.get(AlertRetention).sweep(NOW);

    expect(result.deliveries).toBe(3);
    const { rows } = await t.db.sql(`SELECT id FROM deliveries ORDER BY created_at`);
    expect(rows.map((row: { id: string }) => row.id).sort()).toEqual([...kept].sort());
    const attempts = await t.db.sql(`SELECT delivery_id FROM delivery_attempts WHERE delivery_id = ANY ($1::uuid[])`, [
      old,
    ]);
    expect(attempts.rows).toEqual([]);
  });

  it("deletes old job states that say `not failing` and those of deleted jobs; keeps a live job's failing state", async () => {
    const jobs = t.app.get(JobsService);
    const live = await jobs.create({ name: 'still-failing', command: 'false', cronExpression: '0 0 1 1 *' });
    const removed = await jobs.create({ name: 'removed', command: 'false', cronExpression: '0 0 1 1 *' });
    await jobs.remove(removed.id, 'test');
    const recent = randomUUID();
    const healthy = randomUUID();
    await jobState(live.id, true, ago(90));
    await jobState(removed.id, true, ago(90));
    await jobState(healthy, false, ago(31));
    await jobState(recent, false, ago(2));

    const result = await t.app.get(AlertRetention).sweep(NOW);

    expect(result.jobStates).toBe(2);
    const { rows } = await t.db.sql(`SELECT job_id FROM alert_job_states`);
    expect(rows.map((row: { job_id: string }) => row.job_id).sort()).toEqual([live.id, recent].sort());
  });
});
