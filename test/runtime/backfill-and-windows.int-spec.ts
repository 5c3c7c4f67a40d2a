import request from 'supertest';
import { commandRequestFor } from '../../src/runtime/application/command-request.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import type { Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { jobCreator, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const HOUR = 3_600_000;
const DAY = '2026-11-29';
const MIDNIGHT = new Date(`${DAY}T00:00:00.000Z`);

/**
 * An API node, and on its database a runtime node whose loops do not run: the tests pass its
 * scheduler by hand, at the clock's instants.
 */
describe('backfill, schedule windows and jitter', () => {
  const clock = new FakeClock(new Date(`${DAY}T00:00:00.000Z`));
  let t: TestApp;
  let runtime: TestApp;
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ clock });
    runtime = await createTestApp({ role: 'all', clock, init: false, db: t.db });
  });
  afterAll(async () => {
    await runtime.close();
    await t.close();
  });

  const newJob = jobCreator(() => t, { command: 'true', cronExpression: '0 * * * *' });

  async function runsOf(jobId: string): Promise<{ trigger: string; scheduled_for: Date; due_at: Date }[]> {
    const { rows } = await t.db.sql(
      `SELECT trigger, scheduled_for, due_at FROM executions WHERE job_id = $1 ORDER BY scheduled_for, trigger`,
      [jobId],
    );
    return rows as { trigger: string; scheduled_for: Date; due_at: Date }[];
  }

  const passAt = (instant: Date) => {
    clock.set(instant);
    return runtime.app.get(SchedulerService).pass(instant);
  };

  it('a backfill of a day of an hourly job that already ran three slots queues the other 21, once', async () => {
    clock.set(new Date(MIDNIGHT.getTime() - HOUR / 2));
    const job = await newJob();
    for (let hour = 0; hour < 3; hour++) await passAt(new Date(MIDNIGHT.getTime() + hour * HOUR));
    expect((await runsOf(job.id)).map((run) => run.trigger)).toEqual(['SCHEDULE', 'SCHEDULE', 'SCHEDULE']);

    clock.set(`2026-11-30T10:00:00.000Z`);
    await t.db.sql(`UPDATE jobs SET enabled = false WHERE id = $1`, [job.id]); // the scheduler stays out of it
    const window = { from: `${DAY}T00:00:00Z`, to: '2026-11-30T00:00:00Z' };
    const res = await http().post(`/jobs/${job.id}/backfill`).send(window).expect(201);
    expect(res.body).toEqual({ slots: 24, queued: 21, skipped: 3 });

    const runs = await runsOf(job.id);
    const backfilled = runs.filter((run) => run.trigger === 'BACKFILL');
    expect(backfilled.map((run) => run.scheduled_for.toISOString())).toEqual(
      Array.from({ length: 21 }, (_, i) => new Date(MIDNIGHT.getTime() + (i + 3) * HOUR).toISOString()),
    );
    expect(backfilled.every((run) => run.due_at.getTime() === clock.now().getTime())).toBe(true);

    const again = await http().post(`/jobs/${job.id}/backfill`).send(window).expect(201);
    expect(again.body).toEqual({ slots: 24, queued: 0, skipped: 24 });
    expect(await runsOf(job.id)).toHaveLength(24);
  });

  it('every run that belongs to a slot sees ORBIT_SCHEDULED_FOR, a backfilled one included', async () => {
    clock.set('2026-11-30T10:00:00.000Z');
    const job = await newJob();
    await http()
      .post(`/jobs/${job.id}/backfill`)
      .send({ from: `${DAY}T05:00:00Z`, to: `${DAY}T06:00:00Z` });
    const { rows } = await t.db.sql(`SELECT id FROM executions WHERE job_id = $1`, [job.id]);
    const execution = await runtime.app.get(ExecutionsService).get(rows[0].id);
    expect(execution.trigger).toBe('BACKFILL');
    expect(commandRequestFor(execution, runtime.config).env.ORBIT_SCHEDULED_FOR).toBe(`${DAY}T05:00:00.000Z`);
  });

  it.each<[string, JobFields, number, string, Partial<Schema<'BackfillDto'>>?]>([
    ['a window of more than 1,000 slots', { cronExpression: '* * * * *' }, 400, 'holds 1440 slots'],
    ['a window that ends in the future', {}, 400, 'in the future', { to: '2026-12-01T00:00:00Z' }],
    ['a window that ends before it starts', {}, 400, 'to must be after from', { to: `${DAY}T00:00:00Z` }],
    ['a job without a schedule', { cronExpression: null }, 400, 'has no schedule'],
  ])('%s is refused, and nothing is queued', async (_case, fields, status, message, window = {}) => {
    clock.set('2026-11-30T10:00:00.000Z');
    const job = await newJob(fields);
    const body = { from: `${DAY}T00:00:00Z`, to: '2026-11-30T00:00:00Z', ...window };
    const res = await http().post(`/jobs/${job.id}/backfill`).send(body).expect(status);
    expect(res.body.message).toContain(message);
    expect(await runsOf(job.id)).toEqual([]);
  });

  it('a FORBID job with an active run refuses a backfill with a 409', async () => {
    clock.set('2026-11-30T10:00:00.000Z');
    const job = await newJob({ concurrencyPolicy: 'FORBID' });
    await http().post(`/jobs/${job.id}/executions`).expect(201);
    const res = await http()
      .post(`/jobs/${job.id}/backfill`)
      .send({ from: `${DAY}T00:00:00Z`, to: `${DAY}T02:00:00Z` })
      .expect(409);
    expect(res.body.message).toContain('FORBID');
  });

  it('no slot fires outside startsAt and endsAt; next-runs, the schedule and a backfill agree', async () => {
    clock.set(`${DAY}T00:30:00.000Z`);
    const job = await newJob({ startsAt: `${DAY}T03:00:00Z`, endsAt: `${DAY}T05:00:00Z` });
    expect(job.nextRunAt).toBe(`${DAY}T03:00:00.000Z`);
    const next = await http().get(`/jobs/${job.id}/next-runs`).query({ count: 10 }).expect(200);
    expect(next.body.runs).toEqual([`${DAY}T03:00:00.000Z`, `${DAY}T04:00:00.000Z`, `${DAY}T05:00:00.000Z`]);

    for (let hour = 1; hour <= 8; hour++) await passAt(new Date(MIDNIGHT.getTime() + hour * HOUR));
    expect((await runsOf(job.id)).map((run) => run.scheduled_for.toISOString())).toEqual(next.body.runs);
    expect((await http().get(`/jobs/${job.id}`)).body.nextRunAt).toBeNull();

    clock.set('2026-11-30T10:00:00.000Z');
    const backfill = await http()
      .post(`/jobs/${job.id}/backfill`)
      .send({ from: `${DAY}T00:00:00Z`, to: '2026-11-30T00:00:00Z' })
      .expect(201);
    expect(backfill.body).toEqual({ slots: 3, queued: 0, skipped: 3 });
  });

  it('a job that misses its window (a stalled scheduler) fires no slot after endsAt', async () => {
    clock.set(`${DAY}T00:30:00.000Z`);
    const job = await newJob({ endsAt: `${DAY}T02:00:00Z` });
    await passAt(new Date(`${DAY}T09:00:00.000Z`)); // RUN_ONCE: the most recent slot, within the window
    expect((await runsOf(job.id)).map((run) => run.scheduled_for.toISOString())).toEqual([`${DAY}T02:00:00.000Z`]);
  });

  it('jitter: each slot is due 0 to N seconds after it, scheduledFor stays the slot, and the runs spread', async () => {
    clock.set(`${DAY}T00:00:30.000Z`);
    const job = await newJob({ cronExpression: '* * * * *', jitterSeconds: 30 });
    for (let minute = 1; minute <= 40; minute++) await passAt(new Date(MIDNIGHT.getTime() + minute * 60_000));
    const runs = await runsOf(job.id);
    expect(runs).toHaveLength(40);
    const delays = runs.map((run) => run.due_at.getTime() - run.scheduled_for.getTime());
    for (const [i, run] of runs.entries()) {
      expect(run.scheduled_for.getTime()).toBe(MIDNIGHT.getTime() + (i + 1) * 60_000);
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(30_000);
    expect(new Set(delays).size).toBeGreaterThan(30); // spread, not one offset for all
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(15_000);
  });
});
