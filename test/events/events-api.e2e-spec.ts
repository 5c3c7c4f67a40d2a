import request from 'supertest';
import { EVENT_TYPES } from '../../src/events/domain/orbit-event.js';
import { EXECUTION_STATUSES } from '../../src/executions/domain/execution-status.js';
import { EVENT_FIELDS } from '../support/contract.js';
import { jobCreator } from '../support/jobs.js';
import { expectErrorBody } from '../support/error-body.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import type { Body } from './support.js';

describe('GET /events', () => {
  let t: TestApp;
  const http = () => request(t.app.getHttpServer());
  const newJob = jobCreator(() => t, { command: 'true' });
  const all = async (): Promise<Body[]> => (await http().get('/events?limit=1000').expect(200)).body.items as Body[];

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every execution status has its event type', () => {
    for (const status of EXECUTION_STATUSES) expect(EVENT_TYPES).toContain(`execution.${status.toLowerCase()}`);
  });

  it("a job's changes are events: created, edited, paused, resumed, deleted, each at the job's own instant", async () => {
    const job = await newJob();
    const edited = (await http().patch(`/jobs/${job.id}`).send({ command: 'echo edited' }).expect(200)).body as Body;
    const paused = (await http().patch(`/jobs/${job.id}`).send({ enabled: false }).expect(200)).body as Body;
    const resumed = (await http().patch(`/jobs/${job.id}`).send({ enabled: true }).expect(200)).body as Body;
    // the scheduler moving next_run_at is no change of the job
    await t.db.sql(`UPDATE jobs SET next_run_at = now() + interval '1 hour' WHERE id = $1`, [job.id]);
    await http().delete(`/jobs/${job.id}`).expect(204);
    const { rows } = await t.db.sql(`SELECT deleted_at FROM jobs WHERE id = $1`, [job.id]);

    const events = (await all()).filter((e) => e.jobId === job.id);
    expect(events.map((e) => [e.type, e.at])).toEqual([
      ['job.created', job.createdAt],
      ['job.updated', edited.updatedAt],
      ['job.paused', paused.updatedAt],
      ['job.resumed', resumed.updatedAt],
      ['job.deleted', (rows[0].deleted_at as Date).toISOString()],
    ]);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(EVENT_FIELDS);
      expect(event).toMatchObject({ executionId: null, from: null, to: null, attempt: null, retryQueued: false });
    }
  });

  it('pages in order of seq; nextAfter leads to the next page, and an empty page keeps the cursor', async () => {
    const job = await newJob();
    for (let i = 0; i < 4; i++) await http().post(`/jobs/${job.id}/executions`).send({}).expect(201);
    const everything = await all();
    const seqs = everything.map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    const paged: number[] = [];
    let after = 0;
    for (;;) {
      const page = await http().get(`/events?after=${after}&limit=2`).expect(200);
      const items = page.body.items as Body[];
      expect(items.length).toBeLessThanOrEqual(2);
      if (items.length === 0) {
        expect(page.body.nextAfter).toBe(after);
        break;
      }
      expect(page.body.nextAfter).toBe(items[items.length - 1]!.seq);
      paged.push(...items.map((e) => e.seq as number));
      after = page.body.nextAfter as number;
    }
    expect(paged).toEqual(seqs);

    const tail = await http()
      .get(`/events?after=${seqs[seqs.length - 3]}`)
      .expect(200);
    expect(tail.body.items.map((e: Body) => e.seq)).toEqual(seqs.slice(-2));
  });

  it('answers at most 100 events by default', async () => {
    const job = await newJob();
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(1, 120)`,
      [job.id],
    );
    expect((await http().get('/events').expect(200)).body.items).toHaveLength(100);
    expect((await http().get('/events?limit=1000').expect(200)).body.items.length).toBeGreaterThan(120);
  });

  it.each([
    ['after=-1', 'after must not be less than 0'],
    ['after=abc', 'after must be an integer number'],
    ['after=1.5', 'after must be an integer number'],
    ['after=9007199254740992', 'after must not be greater than 9007199254740991'],
    ['limit=0', 'limit must not be less than 1'],
    ['limit=1001', 'limit must not be greater than 1000'],
    ['cursor=x', 'cursor is not an accepted field'],
  ])('GET /events?%s is a 400 naming the field', async (query, message) => {
    const res = await http().get(`/events?${query}`).expect(400);
    expectErrorBody(res.body, 400, 'Bad Request');
    expect(res.body).toMatchObject({ message: expect.stringContaining(message), field: query.split('=')[0] });
  });
});
