import { jest } from '@jest/globals';
import request from 'supertest';
import { Database } from '../../src/shared/infrastructure/database.js';
import type { ActionBody, Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { expectErrorBody } from '../support/error-body.js';

type Job = Schema<'JobResponse'>;
type Execution = Schema<'ExecutionResponse'>;

const T0 = '2026-11-30T10:00:00.000Z';
const HOUR = 3_600_000;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const ZERO_COUNTS = { QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };

const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

describe('jobs at a glance: lastExecution and stats', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());

  async function queue(jobId: string): Promise<Execution> {
    const res = await api().post(`/jobs/${jobId}/executions`);
    expect(res.status).toBe(201);
    return res.body as Execution;
  }

  async function act(executionId: string, action: string, body: ActionBody = {}): Promise<Execution> {
    const res = await api().post(`/executions/${executionId}/${action}`).send(body);
    expect(res.status).toBe(200);
    return res.body as Execution;
  }

  /** Queued and started at the clock's now, then finished `runMs` later (the clock moves on by `runMs`). */
  async function run(jobId: string, outcome: 'succeed' | 'fail' | 'cancel', runMs: number): Promise<Execution> {
    const execution = await queue(jobId);
    await act(execution.id, 'start');
    clock.advance(runMs);
    const body: ActionBody =
      outcome === 'succeed' ? { exitCode: 0 } : outcome === 'fail' ? { exitCode: 2, errorMessage: 'x' } : {};
    return act(execution.id, outcome, body);
  }

  async function getJob(id: string): Promise<Job> {
    const res = await api().get(`/jobs/${id}`);
    expect(res.status).toBe(200);
    return res.body as Job;
  }

  async function listed(id: string): Promise<Job> {
    const res = await api().get('/jobs').query({ limit: 100 });
    expect(res.status).toBe(200);
    const job = (res.body as Schema<'JobPageResponse'>).items.find((item) => item.id === id);
    expect(job).toBeDefined();
    return job!;
  }

  async function stats(id: string, hours?: number): Promise<Schema<'JobStatsResponse'>> {
    const res = await api()
      .get(`/jobs/${id}/stats`)
      .query(hours === undefined ? {} : { hours });
    expect(res.status).toBe(200);
    return res.body as Schema<'JobStatsResponse'>;
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => {
    clock.set(T0);
  });

  describe('lastExecution', () => {
    it('is null for a job without executions, on create, read, list and update', async () => {
      const created = await createJob(t);
      expect(created.lastExecution).toBeNull();

      expect((await getJob(created.id)).lastExecution).toBeNull();
      expect((await listed(created.id)).lastExecution).toBeNull();
      const patched = await api().patch(`/jobs/${created.id}`).send({ command: 'echo changed' });
      expect(patched.status).toBe(200);
      expect(patched.body.lastExecution).toBeNull();
    });

    it('is the most recently created execution, with its id, status and finishedAt, on read and in the list', async () => {
      const job = await createJob(t);
      await run(job.id, 'succeed', 1_000);
      clock.advance(1_000);
      await run(job.id, 'fail', 2_000);
      clock.advance(1_000);
      const newest = await queue(job.id);

      const expected = { id: newest.id, status: 'QUEUED', finishedAt: null };
      expect((await getJob(job.id)).lastExecution).toEqual(expected);
      expect((await listed(job.id)).lastExecution).toEqual(expected);
    });

    it('follows the newest execution through its lifecycle, finishedAt included', async () => {
      const job = await createJob(t);
      const execution = await queue(job.id);
      clock.advance(500);
      await act(execution.id, 'start');
      expect((await getJob(job.id)).lastExecution).toEqual({ id: execution.id, status: 'RUNNING', finishedAt: null });

      clock.advance(1_500);
      await act(execution.id, 'succeed', { exitCode: 0 });

      const last = { id: execution.id, status: 'SUCCEEDED', finishedAt: at(2_000) };
      expect((await getJob(job.id)).lastExecution).toEqual(last);
      expect((await listed(job.id)).lastExecution).toEqual(last);
    });

    it('is chosen by creation, not by when an execution finished', async () => {
      const job = await createJob(t);
      const older = await queue(job.id);
      clock.advance(1_000);
      const newer = await queue(job.id);
      clock.advance(1_000);
      await act(older.id, 'start');
      await act(older.id, 'succeed', { exitCode: 0 });

      expect((await getJob(job.id)).lastExecution).toEqual({ id: newer.id, status: 'QUEUED', finishedAt: null });
    });

    it('among executions created at the same instant, is the first one GET /executions lists', async () => {
      const job = await createJob(t);
      for (let i = 0; i < 4; i++) await queue(job.id);

      const newestFirst = await api().get('/executions').query({ jobId: job.id, limit: 1 });
      expect(newestFirst.status).toBe(200);
      expect((await getJob(job.id)).lastExecution?.id).toBe(newestFirst.body.items[0].id);
    });

    it('belongs to each job in the list: never another job’s execution', async () => {
      const [a, b, none] = [await createJob(t), await createJob(t), await createJob(t)];
      const ofA = await queue(a.id);
      clock.advance(1_000);
      const ofB = await run(b.id, 'cancel', 250);
      clock.advance(1_000);
      await queue(a.id).then((e) => act(e.id, 'cancel'));
      const lastOfA = await api().get('/executions').query({ jobId: a.id, limit: 1 });

      expect(lastOfA.body.items[0].id).not.toBe(ofA.id);
      expect((await listed(a.id)).lastExecution).toEqual({
        id: lastOfA.body.items[0].id,
        status: 'CANCELLED',
        finishedAt: at(2_250),
      });
      expect((await listed(b.id)).lastExecution).toEqual({ id: ofB.id, status: 'CANCELLED', finishedAt: at(1_250) });
      expect((await listed(none.id)).lastExecution).toBeNull();
    });

    it('PATCH answers the current lastExecution', async () => {
      const job = await createJob(t);
      const execution = await queue(job.id);

      const patched = await api().patch(`/jobs/${job.id}`).send({ enabled: false });

      expect(patched.status).toBe(200);
      expect(patched.body.lastExecution).toEqual({ id: execution.id, status: 'QUEUED', finishedAt: null });
    });

    it('a page of jobs reads the last executions of all its jobs in one query, not one per job', async () => {
      clock.set(at(10 * HOUR)); // newer than the jobs of the other tests: these five are the first page
      const jobs: Job[] = [];
      for (let i = 0; i < 5; i++) {
        const job = await createJob(t);
        await queue(job.id);
        jobs.push(job);
      }
      const database = t.app.get(Database);
      const rows = jest.spyOn(database, 'rows');
      try {
        const res = await api().get('/jobs').query({ limit: 5 });

        expect(res.status).toBe(200);
        const { items } = res.body as Schema<'JobPageResponse'>;
        expect(items.map((job) => job.id).sort()).toEqual(jobs.map((job) => job.id).sort());
        expect(items.every((job) => job.lastExecution?.status === 'QUEUED')).toBe(true);
        const executionQueries = rows.mock.calls.filter(([sql]) => /\bexecutions\b/.test(sql));
        expect(executionQueries).toHaveLength(1);
      } finally {
        rows.mockRestore();
      }
    });
  });

  describe('GET /jobs/:id/stats', () => {
    it('counts every status and gives exact p50 and p95 of the durations of finished runs', async () => {
      const job = await createJob(t);
      await run(job.id, 'succeed', 1_000);
      await run(job.id, 'succeed', 2_000);
      await run(job.id, 'fail', 3_000);
      await run(job.id, 'cancel', 5_000); // cancelled while running: it ran 5 s
      const cancelledQueued = await queue(job.id);
      await act(cancelledQueued.id, 'cancel'); // never started: no duration
      await act((await queue(job.id)).id, 'start'); // still running: no duration
      await queue(job.id);
      clock.advance(60_000);

      const body = await stats(job.id);

      expect(Object.keys(body).sort()).toEqual(['counts', 'durationMs', 'since', 'successRate', 'windowHours']);
      expect(body.windowHours).toBe(24);
      expect(body.since).toBe(new Date(clock.now().getTime() - 24 * HOUR).toISOString());
      expect(body.counts).toEqual({ QUEUED: 1, RUNNING: 1, SUCCEEDED: 2, FAILED: 1, CANCELLED: 2 });
      // cancelled runs are nobody's outcome: 2 of the 3 that succeeded or failed
      expect(body.successRate).toBeCloseTo(2 / 3, 10);
      // durations 1000, 2000, 3000, 5000: continuous percentiles interpolate between them
      expect(body.durationMs.p50).toBe(2_500);
      expect(body.durationMs.p95).toBeCloseTo(4_700, 6);
    });

    it('with a single finished run, p50 and p95 are its duration', async () => {
      const job = await createJob(t);
      await run(job.id, 'succeed', 1_234);

      expect((await stats(job.id)).durationMs).toEqual({ p50: 1_234, p95: 1_234 });
    });

    it('without executions: all counts 0 and null percentiles', async () => {
      const job = await createJob(t);

      expect(await stats(job.id)).toEqual({
        windowHours: 24,
        since: new Date(Date.parse(T0) - 24 * HOUR).toISOString(),
        counts: ZERO_COUNTS,
        durationMs: { p50: null, p95: null },
        successRate: null,
      });
    });

    it('without a finished run: the counts, and null percentiles', async () => {
      const job = await createJob(t);
      await queue(job.id);
      await act((await queue(job.id)).id, 'start');
      await act((await queue(job.id)).id, 'cancel');

      const body = await stats(job.id);

      expect(body.counts).toEqual({ ...ZERO_COUNTS, QUEUED: 1, RUNNING: 1, CANCELLED: 1 });
      expect(body.durationMs).toEqual({ p50: null, p95: null });
    });

    it('counts only the executions created within the window, from `since` on', async () => {
      const job = await createJob(t);
      clock.set(at(-30 * HOUR));
      await run(job.id, 'fail', 9_000); // 30 hours before T0
      clock.set(at(-HOUR - 1));
      await run(job.id, 'succeed', 7_000); // created 1 ms before a one-hour window
      clock.set(at(-HOUR));
      await run(job.id, 'succeed', 3_000); // created exactly at the start of a one-hour window
      clock.set(at(-1_000));
      await run(job.id, 'succeed', 1_000); // created a second ago
      clock.set(T0);

      const lastHour = await stats(job.id, 1);
      expect(lastHour.windowHours).toBe(1);
      expect(lastHour.since).toBe(at(-HOUR));
      expect(lastHour.counts).toEqual({ ...ZERO_COUNTS, SUCCEEDED: 2 });
      expect(lastHour.durationMs.p50).toBe(2_000);
      expect(lastHour.durationMs.p95).toBeCloseTo(2_900, 6);

      const lastDay = await stats(job.id);
      expect(lastDay.counts).toEqual({ ...ZERO_COUNTS, SUCCEEDED: 3 });
      expect(lastDay.durationMs.p50).toBe(3_000);

      const twoDays = await stats(job.id, 48);
      expect(twoDays.counts).toEqual({ ...ZERO_COUNTS, SUCCEEDED: 3, FAILED: 1 });
      expect(twoDays.durationMs.p50).toBe(5_000);
    });

    it('counts only the executions of this job', async () => {
      const [job, other] = [await createJob(t), await createJob(t)];
      await run(other.id, 'succeed', 10_000);
      await run(job.id, 'fail', 1_000);

      const body = await stats(job.id);

      expect(body.counts).toEqual({ ...ZERO_COUNTS, FAILED: 1 });
      expect(body.durationMs).toEqual({ p50: 1_000, p95: 1_000 });
    });

    it('accepts the window bounds 1 and 8760 hours', async () => {
      const job = await createJob(t);

      expect((await stats(job.id, 1)).windowHours).toBe(1);
      const year = await stats(job.id, 8760);
      expect(year.windowHours).toBe(8760);
      expect(year.since).toBe(at(-8760 * HOUR));
    });

    it.each(['0', '8761', '-1', '1.5', 'abc', ''])('hours=%p is 400 naming hours', async (hours) => {
      const job = await createJob(t);

      const res = await api().get(`/jobs/${job.id}/stats?hours=${hours}`);

      expect(res.status).toBe(400);
      expectErrorBody(res.body, 400, 'Bad Request');
      expect(res.body).toMatchObject({ message: expect.stringContaining('hours'), field: 'hours' });
    });

    it('an unknown job is 404', async () => {
      const res = await api().get(`/jobs/${UNKNOWN_ID}/stats`);

      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, message: `Job ${UNKNOWN_ID} not found`, error: 'Not Found' });
    });

    it('a deleted job is 404', async () => {
      const job = await createJob(t);
      await run(job.id, 'succeed', 1_000);
      expect((await api().delete(`/jobs/${job.id}`)).status).toBe(204);

      expect((await api().get(`/jobs/${job.id}/stats`)).status).toBe(404);
    });

    it('a malformed id is 400', async () => {
      const res = await api().get('/jobs/not-a-uuid/stats');

      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message: expect.any(String), error: 'Bad Request' });
    });

    it('an unknown query parameter is 400', async () => {
      const job = await createJob(t);

      const res = await api().get(`/jobs/${job.id}/stats?days=2`);

      expect(res.status).toBe(400);
      expect(res.body.message).toContain('days');
    });
  });
});
