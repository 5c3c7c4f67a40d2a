import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { expectErrorBody } from '../support/error-body.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

type Activity = Schema<'ActivityResponse'>;
type Execution = Schema<'ExecutionResponse'>;

const NOW = '2026-11-30T10:00:30.000Z';
const none = { QUEUED: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };

/**
 * The Overview's pictures: runs by the minute or hour and by outcome, and how many waited and
 * ran, from the executions' stored instants. One history, told at the times the clock shows.
 */
describe('GET /overview/activity', () => {
  const clock = new FakeClock();
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  const ids: Record<string, string> = {};

  async function queue(name: string, at: string): Promise<void> {
    clock.set(at);
    const job = await createJob(t, { name, command: 'true', cronExpression: null });
    ids[name] = ((await api().post(`/jobs/${job.id}/executions`).expect(201)).body as Execution).id;
  }

  async function act(name: string, action: 'start' | 'succeed' | 'fail' | 'cancel', at: string): Promise<void> {
    clock.set(at);
    const body =
      action === 'succeed' ? { exitCode: 0 } : action === 'fail' ? { exitCode: 1, errorMessage: 'exit code 1' } : {};
    await api().post(`/executions/${ids[name]}/${action}`).send(body).expect(200);
  }

  async function activity(window?: string): Promise<Activity> {
    const res = await api()
      .get('/overview/activity')
      .query(window ? { window } : {});
    expect(res.status).toBe(200);
    return res.body as Activity;
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    // before the hour, ended in it
    await queue('early', '2026-11-30T08:30:00.000Z');
    await act('early', 'start', '2026-11-30T08:31:00.000Z');
    await act('early', 'succeed', '2026-11-30T09:10:00.000Z');
    await queue('ok', '2026-11-30T09:30:10.000Z');
    await act('ok', 'start', '2026-11-30T09:30:10.000Z');
    await act('ok', 'succeed', '2026-11-30T09:32:10.000Z');
    await queue('broken', '2026-11-30T09:45:00.000Z');
    await act('broken', 'start', '2026-11-30T09:45:00.000Z');
    await act('broken', 'fail', '2026-11-30T09:45:30.000Z');
    await queue('waiting', '2026-11-30T09:50:00.000Z');
    await queue('busy', '2026-11-30T09:55:00.000Z');
    await act('busy', 'start', '2026-11-30T09:56:00.000Z');
    await queue('dropped', '2026-11-30T09:58:00.000Z');
    await act('dropped', 'cancel', '2026-11-30T09:59:00.000Z');
    clock.set(NOW);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('is the last hour by the minute by default: the runs created in each, by their status now', async () => {
    const answer = await activity();
    expect(answer).toMatchObject({
      window: 'hour',
      at: NOW,
      since: '2026-11-30T09:01:00.000Z',
      until: '2026-11-30T10:01:00.000Z',
      stepSeconds: 60,
    });
    expect(answer.outcomes).toHaveLength(60);
    const busy = answer.outcomes.flatMap((bucket, i) => (Object.values(bucket.runs).some((n) => n > 0) ? [i] : []));
    expect(busy).toEqual([29, 44, 49, 54, 57]);
    expect(answer.outcomes[29]).toEqual({ at: '2026-11-30T09:30:00.000Z', runs: { ...none, SUCCEEDED: 1 } });
    expect(answer.outcomes[44]!.runs).toEqual({ ...none, FAILED: 1 });
    expect(answer.outcomes[49]!.runs).toEqual({ ...none, QUEUED: 1 });
    expect(answer.outcomes[54]!.runs).toEqual({ ...none, RUNNING: 1 });
    expect(answer.outcomes[57]!.runs).toEqual({ ...none, CANCELLED: 1 });
  });

  it('samples the runs waiting and running at the end of each minute, and now', async () => {
    const { levels } = await activity('hour');
    expect(levels).toHaveLength(60);
    const at = (minute: string) => levels.find((sample) => sample.at === `2026-11-30T${minute}:00.000Z`);
    // the run that began before the hour runs until it ends in it
    expect(at('09:02')).toEqual({ at: '2026-11-30T09:02:00.000Z', queued: 0, running: 1 });
    expect(at('09:10')).toMatchObject({ queued: 0, running: 1 });
    expect(at('09:11')).toMatchObject({ queued: 0, running: 0 });
    expect(at('09:31')).toMatchObject({ queued: 0, running: 1 });
    expect(at('09:33')).toMatchObject({ queued: 0, running: 0 });
    expect(at('09:51')).toMatchObject({ queued: 1, running: 0 });
    expect(at('09:56')).toMatchObject({ queued: 2, running: 0 });
    expect(at('09:57')).toMatchObject({ queued: 1, running: 1 });
    // cancelled while it waited: it waited, and never ran
    expect(at('09:59')).toMatchObject({ queued: 2, running: 1 });
    expect(at('10:00')).toMatchObject({ queued: 1, running: 1 });
    expect(levels[59]).toEqual({ at: NOW, queued: 1, running: 1 });
  });

  it('is the last day by the hour with window=day', async () => {
    const answer = await activity('day');
    expect(answer).toMatchObject({
      window: 'day',
      since: '2026-11-29T11:00:00.000Z',
      until: '2026-11-30T11:00:00.000Z',
      stepSeconds: 3600,
    });
    expect(answer.outcomes).toHaveLength(24);
    expect(answer.outcomes[21]).toEqual({ at: '2026-11-30T08:00:00.000Z', runs: { ...none, SUCCEEDED: 1 } });
    expect(answer.outcomes[22]!.runs).toEqual({ QUEUED: 1, RUNNING: 1, SUCCEEDED: 1, FAILED: 1, CANCELLED: 1 });
    expect(answer.levels.slice(20)).toEqual([
      { at: '2026-11-30T08:00:00.000Z', queued: 0, running: 0 },
      { at: '2026-11-30T09:00:00.000Z', queued: 0, running: 1 },
      { at: '2026-11-30T10:00:00.000Z', queued: 1, running: 1 },
      { at: NOW, queued: 1, running: 1 },
    ]);
  });

  it('refuses another window, naming the field', async () => {
    const res = await api().get('/overview/activity').query({ window: 'week' });
    expectErrorBody(res.body, 400, 'Bad Request', 'window must be one of hour, day');
  });

  describe('GET /executions by the window they were created in', () => {
    it('lists the runs a bucket counts: created from createdFrom (included) to createdBefore (excluded)', async () => {
      const res = await api()
        .get('/executions')
        .query({ status: 'FAILED', createdFrom: '2026-11-30T09:45:00.000Z', createdBefore: '2026-11-30T09:46:00Z' });
      expect(res.status).toBe(200);
      expect((res.body as Schema<'ExecutionPageResponse'>).items.map((e) => e.id)).toEqual([ids.broken]);
      const before = await api().get('/executions').query({ createdBefore: '2026-11-30T09:45:00Z', limit: 100 });
      expect((before.body as Schema<'ExecutionPageResponse'>).items.map((e) => e.id)).toEqual([ids.ok, ids.early]);
    });

    it.each([
      [{ createdFrom: 'yesterday' }, 'createdFrom must be an ISO 8601 instant with an offset'],
      [{ createdBefore: '2026-11-30T09:45:00' }, 'createdBefore must be an ISO 8601 instant with an offset'],
      [
        { createdFrom: '2026-11-30T09:46:00Z', createdBefore: '2026-11-30T09:45:00Z' },
        'createdFrom must be before createdBefore',
      ],
    ])('refuses %j, naming the field', async (query, message) => {
      const res = await api().get('/executions').query(query);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(message);
    });
  });
});
