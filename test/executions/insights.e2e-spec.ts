import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ActionBody, Query, Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

type Execution = Schema<'ExecutionResponse'>;
type Overview = Schema<'OverviewResponse'>;

const T0 = '2026-11-30T10:00:00.000Z';
const HOUR = 3_600_000;

/**
 * What the dashboard's Jobs list, Job page, Execution page and Overview read beside the plain
 * resources: the failing filter, recent runs, the next attempt and the overview.
 */
describe('the API of the dashboard insights', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  /** The jobs of one test, by a name prefix of its own, so the tests of the file do not see each other's. */
  let prefix = '';

  /** A millisecond apart, so newest first is the order of creation reversed. */
  async function nextJob(fields: JobFields = {}): Promise<Schema<'JobResponse'>> {
    clock.advance(1);
    return createJob(t, { name: `${prefix}${randomUUID()}`, command: 'true', cronExpression: '0 3 * * *', ...fields });
  }

  async function act(executionId: string, action: string, body: ActionBody = {}): Promise<Execution> {
    const res = await api().post(`/executions/${executionId}/${action}`).send(body);
    expect(res.status).toBe(200);
    return res.body as Execution;
  }

  /** Queued and started now, ended `runMs` later (the clock moves on). */
  async function run(jobId: string, outcome: 'succeed' | 'fail' | 'cancel', runMs = 1000): Promise<Execution> {
    const execution = (await api().post(`/jobs/${jobId}/executions`).expect(201)).body as Execution;
    await act(execution.id, 'start');
    clock.advance(runMs);
    const body: ActionBody =
      outcome === 'succeed' ? { exitCode: 0 } : outcome === 'fail' ? { exitCode: 2, errorMessage: 'x' } : {};
    return act(execution.id, outcome, body);
  }

  async function names(query: Query<'/jobs', 'get'>): Promise<string[]> {
    const res = await api()
      .get('/jobs')
      .query({ name: prefix, limit: 100, ...query });
    expect(res.status).toBe(200);
    return (res.body as Schema<'JobPageResponse'>).items.map((job) => job.name);
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => {
    prefix = `ins-${randomUUID().slice(0, 8)}-`;
  });

  describe('GET /jobs?failing=', () => {
    it('true lists the jobs whose last run that succeeded or failed failed; false the others', async () => {
      const failed = await nextJob({ name: `${prefix}failed` });
      const recovered = await nextJob({ name: `${prefix}recovered` });
      const cancelledAfterFailure = await nextJob({ name: `${prefix}cancelled-after-failure` });
      await nextJob({ name: `${prefix}never-ran` });
      await run(failed.id, 'succeed');
      await run(failed.id, 'fail');
      await run(recovered.id, 'fail');
      await run(recovered.id, 'succeed');
      await run(cancelledAfterFailure.id, 'fail');
      await run(cancelledAfterFailure.id, 'cancel');

      expect(await names({ failing: true })).toEqual([`${prefix}cancelled-after-failure`, `${prefix}failed`]);
      expect(await names({ failing: false })).toEqual([`${prefix}never-ran`, `${prefix}recovered`]);
      expect(await names({ failing: true, ids: [failed.id, recovered.id] })).toEqual([`${prefix}failed`]);
    });

    it('counts runs, not attempts: a run failed once all its attempts failed; one still retrying has not', async () => {
      const exhausted = await nextJob({ name: `${prefix}exhausted`, maxRetries: 1 });
      const retrying = await nextJob({ name: `${prefix}retrying`, maxRetries: 1 });
      const recovered = await nextJob({ name: `${prefix}recovered`, maxRetries: 1 });
      const retryCancelled = await nextJob({ name: `${prefix}retry-cancelled`, maxRetries: 1 });
      const retryOf = async (attempt: Execution) =>
        ((await api().get('/executions').query({ retryOf: attempt.id }).expect(200)).body.items as Execution[])[0]!;
      /** The retry of a failed attempt, started now and ended a second later. */
      const endRetry = async (attempt: Execution, outcome: 'succeed' | 'fail') => {
        const retry = await retryOf(attempt);
        await act(retry.id, 'start');
        clock.advance(1000);
        return act(retry.id, outcome, outcome === 'succeed' ? { exitCode: 0 } : { exitCode: 2, errorMessage: 'x' });
      };
      for (const job of [exhausted, retrying, recovered, retryCancelled]) await run(job.id, 'succeed');
      await endRetry(await run(exhausted.id, 'fail'), 'fail');
      const stillRetrying = await run(retrying.id, 'fail');
      await endRetry(await run(recovered.id, 'fail'), 'succeed');
      await act((await retryOf(await run(retryCancelled.id, 'fail'))).id, 'cancel');

      expect(await names({ failing: true })).toEqual([`${prefix}exhausted`]);
      expect(await names({ failing: false })).toEqual([
        `${prefix}retry-cancelled`,
        `${prefix}recovered`,
        `${prefix}retrying`,
      ]);

      // a later run still retrying leaves the failure of the last run that ended
      const laterRetrying = await run(exhausted.id, 'fail');
      expect(await names({ failing: true })).toEqual([`${prefix}exhausted`]);
      // the Overview's test counts the runs that wait
      for (const attempt of [stillRetrying, laterRetrying]) await act((await retryOf(attempt)).id, 'cancel');
    });

    it('is paged by cursor and goes with the other filters', async () => {
      const jobs = [];
      for (let i = 0; i < 3; i++) jobs.push(await nextJob({ name: `${prefix}${i}` }));
      for (const job of jobs) await run(job.id, 'fail');
      await api().patch(`/jobs/${jobs[0]!.id}`).send({ enabled: false }).expect(200);

      const first = await api().get('/jobs').query({ name: prefix, failing: true, limit: 2 }).expect(200);
      expect((first.body as Schema<'JobPageResponse'>).items.map((job) => job.name)).toEqual([
        `${prefix}2`,
        `${prefix}1`,
      ]);
      const second = await api()
        .get('/jobs')
        .query({ name: prefix, failing: true, limit: 2, cursor: first.body.nextCursor })
        .expect(200);
      expect((second.body as Schema<'JobPageResponse'>).items.map((job) => job.name)).toEqual([`${prefix}0`]);
      expect(second.body.nextCursor).toBeNull();
      expect(await names({ failing: true, enabled: false })).toEqual([`${prefix}0`]);
    });

    it('refuses anything but true or false, naming the parameter', async () => {
      const res = await api().get('/jobs').query({ failing: 'yes' });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('failing must be true or false');
    });
  });

  describe('GET /jobs/recent-runs', () => {
    it('answers the newest runs that ended of each job, newest first, with durations and the success rate', async () => {
      const a = await nextJob();
      const b = await nextJob();
      const quiet = await nextJob();
      const first = await run(a.id, 'succeed', 1500);
      const second = await run(a.id, 'fail', 250);
      const third = await run(a.id, 'cancel', 100);
      const ofB = await run(b.id, 'succeed', 4000);
      // a run that has not ended is not a recent run
      await act((await api().post(`/jobs/${b.id}/executions`).expect(201)).body.id as string, 'start');

      const res = await api()
        .get('/jobs/recent-runs')
        .query({ ids: `${a.id},${b.id},${quiet.id}` });
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        {
          jobId: a.id,
          runs: [
            expect.objectContaining({ id: third.id, status: 'CANCELLED', durationMs: 100 }),
            expect.objectContaining({ id: second.id, status: 'FAILED', durationMs: 250 }),
            {
              id: first.id,
              status: 'SUCCEEDED',
              startedAt: first.startedAt,
              finishedAt: first.finishedAt,
              durationMs: 1500,
            },
          ],
          successRate: 0.5,
        },
        { jobId: b.id, runs: [expect.objectContaining({ id: ofB.id, durationMs: 4000 })], successRate: 1 },
        { jobId: quiet.id, runs: [], successRate: null },
      ]);
    });

    it('orders runs that overlapped by their creation, as the list of runs does, not by their end', async () => {
      const job = await nextJob({ concurrencyPolicy: 'ALLOW' });
      const queue = async () => (await api().post(`/jobs/${job.id}/executions`).expect(201)).body as Execution;
      const long = await queue();
      clock.advance(1);
      const short = await queue();
      await act(long.id, 'start');
      await act(short.id, 'start');
      clock.advance(100);
      await act(short.id, 'succeed', { exitCode: 0 });
      clock.advance(100);
      await act(long.id, 'succeed', { exitCode: 0 });

      const res = await api().get(`/jobs/recent-runs?ids=${job.id}`).expect(200);
      const runs = (res.body as Schema<'RecentRunsResponse'>).items[0]?.runs;
      expect(runs?.map((r) => [r.id, r.durationMs])).toEqual([
        [short.id, 100],
        [long.id, 200],
      ]);
      const list = await api().get(`/executions?jobId=${job.id}`).expect(200);
      expect((list.body as { items: Execution[] }).items.map((e) => e.id)).toEqual([short.id, long.id]);
    });

    it('stops at count runs per job, and takes the ids repeated too', async () => {
      const job = await nextJob();
      for (let i = 0; i < 4; i++) await run(job.id, 'succeed', 10 * (i + 1));
      const res = await api().get(`/jobs/recent-runs?ids=${job.id}&ids=${job.id}&count=2`).expect(200);
      expect(res.body.items).toHaveLength(1);
      expect((res.body as Schema<'RecentRunsResponse'>).items[0]?.runs.map((r) => r.durationMs)).toEqual([40, 30]);
    });

    it.each([
      ['no ids', {}, 'ids is required'],
      ['an id that is no UUID', { ids: 'not-a-uuid' }, 'each of ids must be a UUID'],
      ['101 ids', { ids: Array.from({ length: 101 }, () => randomUUID()).join(',') }, 'ids may name at most 100 jobs'],
      ['count 201', { ids: randomUUID(), count: 201 }, 'count must not be greater than 200'],
    ])('refuses %s: %s', async (_, query, message) => {
      const res = await api().get('/jobs/recent-runs').query(query);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.message)).toContain(message);
    });
  });

  describe('GET /executions?retryOf=', () => {
    it('answers the attempt that retries an execution, and nothing for the last attempt', async () => {
      const job = await nextJob({ maxRetries: 1 });
      const failed = await run(job.id, 'fail');
      const retries = await api().get('/executions').query({ retryOf: failed.id }).expect(200);
      expect(retries.body.items).toEqual([expect.objectContaining({ retryOf: failed.id, attempt: 2 })]);
      const last = (retries.body as Schema<'ExecutionPageResponse'>).items[0]!;
      expect((await api().get('/executions').query({ retryOf: last.id }).expect(200)).body.items).toEqual([]);
      expect((await api().get('/executions').query({ retryOf: 'x' })).status).toBe(400);
      await act(last.id, 'cancel');
    });
  });

  describe('GET /overview', () => {
    it('counts the runs of the last 24 h by status, the queued, running and late ones, and lists what is due', async () => {
      const before = (await api().get('/overview').expect(200)).body as Overview;
      const job = await nextJob({ cronExpression: '*/30 * * * *' });
      await run(job.id, 'succeed');
      await run(job.id, 'fail');
      await act((await api().post(`/jobs/${job.id}/executions`).expect(201)).body.id as string, 'start');
      const waiting = (await api().post(`/jobs/${job.id}/executions`).expect(201)).body as Execution;
      clock.advance(61_000);

      const body = (await api().get('/overview').expect(200)).body as Overview;
      expect(body).toMatchObject({
        at: clock.now().toISOString(),
        windowHours: 24,
        since: new Date(clock.now().getTime() - 24 * HOUR).toISOString(),
        until: new Date(clock.now().getTime() + 24 * HOUR).toISOString(),
        countLimit: 10000,
        failuresInRow: 3,
      });
      expect(body.lastWindow).toEqual({
        QUEUED: before.lastWindow.QUEUED + 1,
        RUNNING: before.lastWindow.RUNNING + 1,
        SUCCEEDED: before.lastWindow.SUCCEEDED + 1,
        FAILED: before.lastWindow.FAILED + 1,
        CANCELLED: before.lastWindow.CANCELLED,
      });
      expect(body.now).toMatchObject({
        queued: before.now.queued + 1,
        running: before.now.running + 1,
        late: before.now.late + 1,
        lateAfterSeconds: 60,
      });
      expect(Date.parse(body.now.oldestQueuedDueAt as string)).toBeLessThanOrEqual(Date.parse(waiting.dueAt));
      expect(body.due.jobs).toBeGreaterThanOrEqual(1);
      expect(body.due.next).toContainEqual({
        jobId: job.id,
        name: job.name,
        cronExpression: '*/30 * * * *',
        timezone: 'UTC',
        nextRunAt: expect.any(String),
      });
      await act(waiting.id, 'cancel');
    });

    it('names the jobs that failed 3 times in a row, most failures first; a success or a deletion takes one off', async () => {
      const twice = await nextJob();
      const thrice = await nextJob();
      const often = await nextJob();
      const deleted = await nextJob();
      for (let i = 0; i < 2; i++) await run(twice.id, 'fail');
      for (let i = 0; i < 3; i++) await run(thrice.id, 'fail');
      for (let i = 0; i < 5; i++) await run(often.id, 'fail');
      for (let i = 0; i < 9; i++) await run(deleted.id, 'fail');
      await api().delete(`/jobs/${deleted.id}`).expect(204);

      const failing = async () =>
        ((await api().get('/overview').expect(200)).body as Overview).failingRepeatedly.filter((job) =>
          job.name.startsWith(prefix),
        );
      expect(await failing()).toEqual([
        { jobId: often.id, name: often.name, failuresInRow: 5, atLeast: false, lastFinishedAt: expect.any(String) },
        { jobId: thrice.id, name: thrice.name, failuresInRow: 3, atLeast: false, lastFinishedAt: expect.any(String) },
      ]);
      await run(often.id, 'succeed');
      expect((await failing()).map((job) => job.jobId)).toEqual([thrice.id]);
    });

    it('counts runs, not attempts: a run and its retries are one run, and a run still retrying has not failed', async () => {
      const failing = async () =>
        ((await api().get('/overview').expect(200)).body as Overview).failingRepeatedly.filter((job) =>
          job.name.startsWith(prefix),
        );
      /** A run whose every attempt fails: each retry the API queues is started and failed in turn. */
      const failEveryAttempt = async (jobId: string) => {
        let attempt = await run(jobId, 'fail');
        for (;;) {
          const retries = (await api().get('/executions').query({ retryOf: attempt.id }).expect(200)).body
            .items as Execution[];
          if (retries.length === 0) return;
          await act(retries[0]!.id, 'start');
          clock.advance(1000);
          attempt = await act(retries[0]!.id, 'fail', { exitCode: 2, errorMessage: 'x' });
        }
      };
      const retried = await nextJob({ maxRetries: 2 });
      const fewRuns = await nextJob({ maxRetries: 4 });
      for (let i = 0; i < 3; i++) await failEveryAttempt(retried.id);
      for (let i = 0; i < 2; i++) await failEveryAttempt(fewRuns.id);
      // a third run of fewRuns: its first attempt failed, its retry waits
      const retrying = await run(fewRuns.id, 'fail');

      expect(await failing()).toEqual([
        { jobId: retried.id, name: retried.name, failuresInRow: 3, atLeast: false, lastFinishedAt: expect.any(String) },
      ]);
      const [retry] = (await api().get('/executions').query({ retryOf: retrying.id }).expect(200)).body
        .items as Execution[];
      await act(retry!.id, 'cancel');
      await failEveryAttempt(fewRuns.id);
      // as many failed runs: the latest failure first
      expect((await failing()).map((job) => [job.name, job.failuresInRow])).toEqual([
        [fewRuns.name, 3],
        [retried.name, 3],
      ]);
    });

    it('reads at most the last 100 failed attempts of a job, and says when there may be more', async () => {
      const job = await nextJob();
      for (let i = 0; i < 101; i++) await run(job.id, 'fail');
      const [failing] = ((await api().get('/overview').expect(200)).body as Overview).failingRepeatedly.filter(
        (listed) => listed.jobId === job.id,
      );
      expect(failing).toMatchObject({ failuresInRow: 100, atLeast: true });
    });
  });
});
