import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { jobBody, jobCreator } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { JOB_FIELDS } from '../support/contract.js';
import { expectErrorBody } from '../support/error-body.js';

const T0 = '2026-11-30T10:00:00.000Z';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** A body or query sent as it is, wrong on purpose in many tests here. */
type Body = Record<string, unknown>;
type Job = Schema<'JobResponse'>;
type Execution = Schema<'ExecutionResponse'>;

/** A job every quarter of an hour: its next runs are a few minutes after T0. */
const QUARTER_HOURLY = { cronExpression: '*/15 * * * *' };
/** A valid job body with `overrides` over it, which may be wrong on purpose (so untyped). */
const validJob = (overrides: Body = {}): Body => ({ ...jobBody(QUARTER_HOURLY), ...overrides });

const expectError = (body: unknown, statusCode: number, error: string) => expectErrorBody(body, statusCode, error);

/** Every way a job field can be wrong, on create and on update alike. */
const INVALID_FIELDS: Array<[string, unknown]> = [
  ['name', ''],
  ['name', '   '],
  ['name', 'x'.repeat(201)],
  ['name', `  ${'x'.repeat(201)}  `],
  ['name', 42],
  ['name', null],
  ['command', ''],
  ['command', '  \t '],
  ['command', 'x'.repeat(8 * 1024 + 1)],
  ['command', 'é'.repeat(4097)], // 4097 characters, 8194 bytes
  ['command', ['echo', 'hi']],
  ['command', null],
  ['cronExpression', ''],
  ['cronExpression', 'not a cron'],
  ['cronExpression', '* * * *'],
  ['cronExpression', '* * * * * * *'],
  ['cronExpression', '61 * * * *'],
  ['cronExpression', '* 25 * * *'],
  ['cronExpression', '@reboot'],
  ['cronExpression', '@every_minute'],
  ['cronExpression', 5],
  ['timezone', 'Mars/Olympus_Mons'],
  ['timezone', 'CEST+99'],
  ['timezone', ''],
  ['timezone', 1],
  ['timezone', null],
  ['maxRetries', -1],
  ['maxRetries', 101],
  ['maxRetries', 1.5],
  ['maxRetries', '3'],
  ['maxRetries', true],
  ['maxRetries', null],
  ['timeoutSeconds', 0],
  ['timeoutSeconds', 604_801],
  ['timeoutSeconds', 2.5],
  ['timeoutSeconds', '60'],
  ['timeoutSeconds', null],
  ['enabled', 'true'],
  ['enabled', 'yes'],
  ['enabled', 1],
  ['enabled', null],
  ['misfirePolicy', 'NEVER'],
  ['concurrencyPolicy', 'SOMETIMES'],
  ['triggers', 'extract'],
  ['triggers', [{ after: 'no-such-job' }]],
  ['triggers', [{ after: 'x', on: ['LATE'] }]],
  ['parameters', [{ name: 'lower' }]],
  ['parameters', [{ name: 'A' }, { name: 'A' }]],
  ['parameters', [{ name: 'A', pattern: '(' }]],
  ['parameters', [{ name: 'A', default: 'b', pattern: 'a' }]],
  ['parameters', [{ name: 'A', required: true }]], // a scheduled run takes the defaults: it needs one
  ['startsAt', 'yesterday'],
  ['endsAt', '2026-13-01T00:00:00Z'],
  ['jitterSeconds', -1],
  ['jitterSeconds', 3601],
  ['jitterSeconds', 1.5],
];

describe('jobs over HTTP', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());

  const newJob = jobCreator(() => t, QUARTER_HOURLY);

  async function queueExecution(jobId: unknown): Promise<Execution> {
    const res = await api().post(`/jobs/${jobId}/executions`);
    expect(res.status).toBe(201);
    return res.body as Execution;
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

  describe('POST /jobs', () => {
    it('creates a job with the defaults: UTC, no retries, one hour timeout, enabled', async () => {
      const res = await api().post('/jobs').send({ name: 'defaults', command: 'echo hi', cronExpression: '0 3 * * *' });

      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(JOB_FIELDS);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'defaults',
        team: 'default',
        description: '',
        command: 'echo hi',
        cronExpression: '0 3 * * *',
        timezone: 'UTC',
        maxRetries: 0,
        timeoutSeconds: 3600,
        enabled: true,
        misfirePolicy: 'RUN_ONCE',
        concurrencyPolicy: 'ALLOW',
        alerts: [],
        lateAfterSeconds: null,
        maxDurationSeconds: null,
        nextRunAt: '2026-12-01T03:00:00.000Z',
        lastExecution: null,
        createdAt: T0,
        updatedAt: T0,
        pausedNote: null,
        resumeAt: null,
        workerSelector: {},
        runOn: 'one',
        maxConcurrent: null,
        concurrencyGroup: null,
        priority: 0,
        triggers: [],
        parameters: [],
        startsAt: null,
        endsAt: null,
        jitterSeconds: 0,
      });
    });

    it('keeps every field it is given, and the job reads back the same', async () => {
      const body = {
        name: 'all-fields',
        command: '/usr/local/bin/backup.sh --full',
        cronExpression: '30 4 * * 1',
        timezone: 'Europe/Berlin',
        maxRetries: 100,
        timeoutSeconds: 604_800,
        enabled: false,
        misfirePolicy: 'SKIP',
        concurrencyPolicy: 'FORBID',
      };
      const res = await api().post('/jobs').send(body);

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ ...body, nextRunAt: null });
      const read = await api().get(`/jobs/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('counts the length of a name in characters, not UTF-16 code units: 200 emoji are a valid name', async () => {
      const name = '\u{1F680}'.repeat(200);
      const res = await api().post('/jobs').send(validJob({ name }));

      expect(res.status).toBe(201);
      expect(res.body.name).toBe(name);
    });

    it('refuses a name of 201 emoji', async () => {
      const res = await api()
        .post('/jobs')
        .send(validJob({ name: '\u{1F680}'.repeat(201) }));

      expect(res.status).toBe(400);
      expect(res.body.message).toContain('name');
    });

    it('trims the name', async () => {
      const job = await newJob({ name: '   spaced out   ' });
      expect(job.name).toBe('spaced out');
    });

    it.each([
      ['a 200-character name', { name: 'n'.repeat(200) }],
      ['a 200-character name inside spaces', { name: `  ${'m'.repeat(200)}  ` }],
      ['a command of exactly 8 KiB', { command: 'c'.repeat(8 * 1024) }],
      ['a multi-byte command of exactly 8 KiB', { command: 'é'.repeat(4096) }],
      ['5 cron fields', { cronExpression: '0 0 * * 0' }],
      ['6 cron fields (seconds first)', { cronExpression: '*/30 * * * * *' }],
      ['@hourly', { cronExpression: '@hourly' }],
      ['@daily', { cronExpression: '@daily' }],
      ['@weekly', { cronExpression: '@weekly' }],
      ['@monthly', { cronExpression: '@monthly' }],
      ['@yearly', { cronExpression: '@yearly' }],
      ['the time zone America/New_York', { timezone: 'America/New_York' }],
      ['maxRetries 0', { maxRetries: 0 }],
      ['maxRetries 100', { maxRetries: 100 }],
      ['timeoutSeconds 1', { timeoutSeconds: 1 }],
      ['timeoutSeconds 604800', { timeoutSeconds: 604_800 }],
      ['enabled false', { enabled: false }],
    ])('accepts %s', async (_label, overrides) => {
      const res = await api().post('/jobs').send(validJob(overrides));
      expect(res.status).toBe(201);
    });

    it.each(['name', 'command', 'cronExpression'])('refuses a job without %s, naming the field', async (field) => {
      const body = validJob();
      delete body[field];
      const res = await api().post('/jobs').send(body);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain(field);
    });

    it.each(INVALID_FIELDS)('refuses %s = %p with 400 naming the field', async (field, value) => {
      const body = validJob({ [field]: value });
      const res = await api().post('/jobs').send(body);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain(field);
      const list = await api().get('/jobs').query({ limit: 100 });
      expect(list.body.items.map((j: Job) => j.name)).not.toContain(body.name);
    });

    it('refuses an unknown field, naming it', async () => {
      const res = await api()
        .post('/jobs')
        .send(validJob({ owner: 'ops' }));

      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        message: 'owner is not an accepted field',
        error: 'Bad Request',
        field: 'owner',
      });
    });

    it('refuses a body that is not valid JSON', async () => {
      const res = await api().post('/jobs').set('Content-Type', 'application/json').send('{"name": "broken",');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });

    it.each([
      ['an empty body', undefined],
      ['a JSON array', []],
    ])('refuses %s with 400, not 500', async (_label, body) => {
      const res = await api().post('/jobs').send(body);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });

    it('two concurrent creations with the same name: one 201, one 409', async () => {
      for (let round = 0; round < 10; round++) {
        const body = validJob();
        const answers = await Promise.all([api().post('/jobs').send(body), api().post('/jobs').send(body)]);

        expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      }
    });

    it('refuses a second job with the same name with 409', async () => {
      const job = await newJob();
      const res = await api()
        .post('/jobs')
        .send(validJob({ name: job.name }));

      expect(res.status).toBe(409);
      expectError(res.body, 409, 'Conflict');
      expect(res.body.message).toContain(String(job.name));
    });

    it('a name is unique after trimming', async () => {
      const job = await newJob();
      const res = await api()
        .post('/jobs')
        .send(validJob({ name: `  ${job.name}  ` }));

      expect(res.status).toBe(409);
    });
  });

  describe('bad input is never a 500', () => {
    it.each([
      ['POST', 'name', 'nul\u0000byte'],
      ['POST', 'command', 'echo \u0000'],
      ['PATCH', 'name', 'nul\u0000byte'],
      ['PATCH', 'command', 'echo \u0000'],
    ])('%s refuses a NUL character in %s with 400 naming the field, never a 500', async (method, field, value) => {
      const res =
        method === 'POST'
          ? await api()
              .post('/jobs')
              .send(validJob({ [field]: value }))
          : await api()
              .patch(`/jobs/${(await newJob()).id}`)
              .send({ [field]: value });

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain(field);
    });
  });

  describe('GET /jobs/:id', () => {
    it('reads a job', async () => {
      const job = await newJob();
      const res = await api().get(`/jobs/${job.id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual(job);
    });

    it('answers 404 for an unknown id', async () => {
      const res = await api().get(`/jobs/${UNKNOWN_ID}`);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
      expect(res.body.message).toContain(UNKNOWN_ID);
    });

    it('answers 400 for a malformed id', async () => {
      const res = await api().get('/jobs/not-a-uuid');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });

  describe('PATCH /jobs/:id', () => {
    it('changes only the fields it is given and moves updatedAt', async () => {
      const job = await newJob({ maxRetries: 2, timeoutSeconds: 60 });
      clock.advance(60_000);

      const res = await api().patch(`/jobs/${job.id}`).send({ command: 'echo changed' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...job,
        command: 'echo changed',
        updatedAt: '2026-11-30T10:01:00.000Z',
      });
      expect((await api().get(`/jobs/${job.id}`)).body).toEqual(res.body);
    });

    it('trims a new name', async () => {
      const job = await newJob();
      const res = await api().patch(`/jobs/${job.id}`).send({ name: '  renamed  ' });

      expect(res.status).toBe(200);
      expect(res.body.name).toBe('renamed');
    });

    it('disabling clears nextRunAt and enabling plans the next slot from now', async () => {
      const job = await newJob({ cronExpression: '0 * * * *' });
      expect(job.nextRunAt).toBe('2026-11-30T11:00:00.000Z');

      const disabled = await api().patch(`/jobs/${job.id}`).send({ enabled: false });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ enabled: false, nextRunAt: null });

      clock.set('2026-11-30T13:30:00.000Z');
      const enabled = await api().patch(`/jobs/${job.id}`).send({ enabled: true });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ enabled: true, nextRunAt: '2026-11-30T14:00:00.000Z' });
    });

    it('a new cron expression replans nextRunAt', async () => {
      const job = await newJob({ cronExpression: '0 * * * *' });
      const res = await api().patch(`/jobs/${job.id}`).send({ cronExpression: '@daily' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ cronExpression: '@daily', nextRunAt: '2026-12-01T00:00:00.000Z' });
    });

    it('an empty patch changes nothing but is accepted', async () => {
      const job = await newJob();
      const res = await api().patch(`/jobs/${job.id}`).send({});

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ...job, updatedAt: expect.any(String) });
    });

    it.each(INVALID_FIELDS)(
      'refuses %s = %p with 400 naming the field, and the job stays as it was',
      async (field, value) => {
        const job = await newJob();
        const res = await api()
          .patch(`/jobs/${job.id}`)
          .send({ [field]: value });

        expect(res.status).toBe(400);
        expectError(res.body, 400, 'Bad Request');
        expect(res.body.message).toContain(field);
        expect((await api().get(`/jobs/${job.id}`)).body).toEqual(job);
      },
    );

    it('refuses an unknown field, naming it', async () => {
      const job = await newJob();
      const res = await api().patch(`/jobs/${job.id}`).send({ owner: 'ops' });

      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        message: 'owner is not an accepted field',
        error: 'Bad Request',
        field: 'owner',
      });
    });

    it.each(['id', 'createdAt', 'updatedAt', 'nextRunAt', 'version'])(
      'refuses %s: it is not a field a caller may set',
      async (field) => {
        const job = await newJob();
        const res = await api()
          .patch(`/jobs/${job.id}`)
          .send({ [field]: field === 'version' ? 7 : field === 'id' ? UNKNOWN_ID : '2030-01-01T00:00:00.000Z' });

        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          statusCode: 400,
          message: `${field} is not an accepted field`,
          error: 'Bad Request',
          field,
        });
        expect((await api().get(`/jobs/${job.id}`)).body).toEqual(job);
      },
    );

    it("refuses taking another job's name with 409", async () => {
      const first = await newJob();
      const second = await newJob();
      const res = await api().patch(`/jobs/${second.id}`).send({ name: first.name });

      expect(res.status).toBe(409);
      expectError(res.body, 409, 'Conflict');
      expect((await api().get(`/jobs/${second.id}`)).body.name).toBe(second.name);
    });

    it('keeping its own name is not a conflict', async () => {
      const job = await newJob();
      const res = await api().patch(`/jobs/${job.id}`).send({ name: job.name, maxRetries: 4 });

      expect(res.status).toBe(200);
      expect(res.body.maxRetries).toBe(4);
    });

    it('answers 404 for an unknown id', async () => {
      const res = await api().patch(`/jobs/${UNKNOWN_ID}`).send({ command: 'echo x' });

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
    });

    it('answers 400 for a malformed id', async () => {
      const res = await api().patch('/jobs/123').send({ command: 'echo x' });

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });

  describe('DELETE /jobs/:id', () => {
    it('deletes a job: 204, then 404 for reads, updates, deletes, runs and next runs', async () => {
      const job = await newJob();

      const res = await api().delete(`/jobs/${job.id}`);

      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      for (const answer of [
        await api().get(`/jobs/${job.id}`),
        await api().patch(`/jobs/${job.id}`).send({ command: 'echo late' }),
        await api().delete(`/jobs/${job.id}`),
        await api().post(`/jobs/${job.id}/executions`),
        await api().get(`/jobs/${job.id}/next-runs`),
      ]) {
        expect(answer.status).toBe(404);
        expectError(answer.body, 404, 'Not Found');
      }
    });

    it('a deleted job is no longer listed', async () => {
      const job = await newJob();
      await api().delete(`/jobs/${job.id}`).expect(204);

      const list = await api().get('/jobs').query({ limit: 100 });
      expect(list.body.items.map((j: Job) => j.id)).not.toContain(job.id);
    });

    it('the name of a deleted job can be reused', async () => {
      const job = await newJob();
      await api().delete(`/jobs/${job.id}`).expect(204);

      const res = await api()
        .post('/jobs')
        .send(validJob({ name: job.name }));

      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(job.id);
    });

    it('cancels the queued executions and keeps the finished ones, all still readable', async () => {
      const job = await newJob();
      const queued = await queueExecution(job.id);
      const done = await queueExecution(job.id);
      await api().post(`/executions/${done.id}/start`).expect(200);
      await api().post(`/executions/${done.id}/succeed`).send({ exitCode: 0 }).expect(200);
      clock.advance(5_000);

      await api().delete(`/jobs/${job.id}`).expect(204);

      const cancelled = await api().get(`/executions/${queued.id}`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({
        status: 'CANCELLED',
        startedAt: null,
        finishedAt: '2026-11-30T10:00:05.000Z',
      });
      const succeeded = await api().get(`/executions/${done.id}`);
      expect(succeeded.body).toMatchObject({ status: 'SUCCEEDED', exitCode: 0 });
      const history = await api().get('/executions').query({ jobId: job.id });
      expect(history.status).toBe(200);
      expect(history.body.items.map((e: Execution) => e.id).sort()).toEqual([queued.id, done.id].sort());
    });

    it('is refused with 409 while one of its executions is RUNNING, and nothing changes', async () => {
      const job = await newJob();
      const running = await queueExecution(job.id);
      await api().post(`/executions/${running.id}/start`).expect(200);
      const queued = await queueExecution(job.id);

      const res = await api().delete(`/jobs/${job.id}`);

      expect(res.status).toBe(409);
      expectError(res.body, 409, 'Conflict');
      expect(res.body.message).toContain(String(running.id));
      expect((await api().get(`/jobs/${job.id}`)).status).toBe(200);
      expect((await api().get(`/executions/${running.id}`)).body.status).toBe('RUNNING');
      expect((await api().get(`/executions/${queued.id}`)).body.status).toBe('QUEUED');
    });

    it('is allowed again once the running execution finished', async () => {
      const job = await newJob();
      const running = await queueExecution(job.id);
      await api().post(`/executions/${running.id}/start`).expect(200);
      await api().delete(`/jobs/${job.id}`).expect(409);
      await api().post(`/executions/${running.id}/cancel`).expect(200);

      const res = await api().delete(`/jobs/${job.id}`);

      expect(res.status).toBe(204);
    });

    it('a run requested while the job is being deleted never stays QUEUED on the deleted job', async () => {
      for (let round = 0; round < 10; round++) {
        const job = await newJob();

        const [deleted, queued] = await Promise.all([
          api().delete(`/jobs/${job.id}`),
          api().post(`/jobs/${job.id}/executions`),
        ]);

        expect(deleted.status).toBe(204);
        expect([201, 404]).toContain(queued.status);
        const history = await api().get('/executions').query({ jobId: job.id });
        expect(history.body.items.map((e: Execution) => e.status)).toEqual(queued.status === 201 ? ['CANCELLED'] : []);
      }
    });

    it('a start racing the deletion: either the job goes and the run is cancelled, or the run starts and the job stays', async () => {
      for (let round = 0; round < 10; round++) {
        const job = await newJob();
        const execution = await queueExecution(job.id);

        const [deleted, started] = await Promise.all([
          api().delete(`/jobs/${job.id}`),
          api().post(`/executions/${execution.id}/start`),
        ]);

        const final = (await api().get(`/executions/${execution.id}`)).body;
        const jobAfter = await api().get(`/jobs/${job.id}`);
        if (deleted.status === 204) {
          expect(started.status).toBe(409);
          expect(final.status).toBe('CANCELLED');
          expect(jobAfter.status).toBe(404);
        } else {
          expect(deleted.status).toBe(409);
          expect(started.status).toBe(200);
          expect(final.status).toBe('RUNNING');
          expect(jobAfter.status).toBe(200);
        }
      }
    });

    it('answers 404 for an unknown id', async () => {
      const res = await api().delete(`/jobs/${UNKNOWN_ID}`);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
    });

    it('answers 400 for a malformed id', async () => {
      const res = await api().delete('/jobs/not-a-uuid');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });

  describe('GET /jobs/:id/next-runs', () => {
    it('lists five runs by default', async () => {
      const job = await newJob({ cronExpression: '0 * * * *' });
      const res = await api().get(`/jobs/${job.id}/next-runs`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        runs: [
          '2026-11-30T11:00:00.000Z',
          '2026-11-30T12:00:00.000Z',
          '2026-11-30T13:00:00.000Z',
          '2026-11-30T14:00:00.000Z',
          '2026-11-30T15:00:00.000Z',
        ],
      });
    });

    it('runs strictly after now: a slot at this very instant is not listed', async () => {
      clock.set('2026-11-30T11:00:00.000Z');
      const job = await newJob({ cronExpression: '0 * * * *' });
      const res = await api().get(`/jobs/${job.id}/next-runs`).query({ count: 1 });

      expect(res.body).toEqual({ runs: ['2026-11-30T12:00:00.000Z'] });
    });

    it('follows Europe/Berlin across the spring-forward change (09:00 local is 08:00Z, then 07:00Z)', async () => {
      clock.set('2026-03-27T12:00:00.000Z');
      const job = await newJob({ cronExpression: '0 9 * * *', timezone: 'Europe/Berlin' });
      expect(job.nextRunAt).toBe('2026-03-28T08:00:00.000Z');

      const res = await api().get(`/jobs/${job.id}/next-runs`).query({ count: 3 });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        runs: ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'],
      });
    });

    it('follows America/New_York across the fall-back change (09:00 local is 13:00Z, then 14:00Z)', async () => {
      clock.set('2026-10-30T14:00:00.000Z');
      const job = await newJob({ cronExpression: '0 9 * * *', timezone: 'America/New_York' });

      const res = await api().get(`/jobs/${job.id}/next-runs`).query({ count: 3 });

      expect(res.body).toEqual({
        runs: ['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z'],
      });
    });

    it('a change of time zone changes the runs', async () => {
      const job = await newJob({ cronExpression: '0 9 * * *' });
      await api().patch(`/jobs/${job.id}`).send({ timezone: 'America/New_York' }).expect(200);

      const res = await api().get(`/jobs/${job.id}/next-runs`).query({ count: 1 });

      expect(res.body).toEqual({ runs: ['2026-11-30T14:00:00.000Z'] });
    });

    it.each([1, 100])('accepts count=%p', async (count) => {
      const job = await newJob({ cronExpression: '* * * * *' });
      const res = await api().get(`/jobs/${job.id}/next-runs`).query({ count });

      expect(res.status).toBe(200);
      expect(res.body.runs).toHaveLength(count);
      expect(res.body.runs[0]).toBe('2026-11-30T10:01:00.000Z');
    });

    it.each(['0', '101', '-1', '1.5', 'abc', ''])('refuses count=%p with 400 naming count', async (count) => {
      const job = await newJob();
      const res = await api().get(`/jobs/${job.id}/next-runs?count=${count}`);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain('count');
    });

    it('answers 404 for an unknown id', async () => {
      const res = await api().get(`/jobs/${UNKNOWN_ID}/next-runs`);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
    });

    it('answers 400 for a malformed id', async () => {
      const res = await api().get('/jobs/nope/next-runs');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });
});

describe('GET /jobs (listing, on its own database)', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  /** Ids of the jobs created here, newest first. */
  const newestFirst: string[] = [];
  let disabled: Set<string>;

  async function walk(query: Body): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await api()
        .get('/jobs')
        .query(cursor ? { ...query, cursor } : query);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((j: Job) => j.id));
      cursor = res.body.nextCursor;
      if (cursor === null) return seen;
    }
    throw new Error('paging never ended');
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    disabled = new Set();
    for (let i = 0; i < 23; i++) {
      clock.advance(1000);
      const res = await api()
        .post('/jobs')
        .send(validJob({ enabled: i % 3 !== 0 }));
      expect(res.status).toBe(201);
      newestFirst.unshift(res.body.id);
      if (i % 3 === 0) disabled.add(res.body.id);
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists newest first, 20 by default, with a cursor to the rest', async () => {
    const res = await api().get('/jobs');

    expect(res.status).toBe(200);
    expect(res.body.items.map((j: Job) => j.id)).toEqual(newestFirst.slice(0, 20));
    expect(res.body.nextCursor).toEqual(expect.any(String));
    expect(Object.keys(res.body.items[0]).sort()).toEqual(JOB_FIELDS);

    const next = await api().get('/jobs').query({ cursor: res.body.nextCursor });
    expect(next.body.items.map((j: Job) => j.id)).toEqual(newestFirst.slice(20));
    expect(next.body.nextCursor).toBeNull();
  });

  it('a page that holds the last job has no next cursor', async () => {
    const res = await api().get('/jobs').query({ limit: 23 });

    expect(res.body.items).toHaveLength(23);
    expect(res.body.nextCursor).toBeNull();
  });

  it('accepts limit=1 and limit=100', async () => {
    const one = await api().get('/jobs').query({ limit: 1 });
    const hundred = await api().get('/jobs').query({ limit: 100 });

    expect(one.body.items.map((j: Job) => j.id)).toEqual(newestFirst.slice(0, 1));
    expect(hundred.body.items.map((j: Job) => j.id)).toEqual(newestFirst);
  });

  it('paging with a small limit visits every job once, in order', async () => {
    await expect(walk({ limit: 4 })).resolves.toEqual(newestFirst);
  });

  it.each([
    ['true', (id: string) => !disabled.has(id)],
    ['false', (id: string) => disabled.has(id)],
  ])('?enabled=%s lists only those jobs, also across pages', async (enabled, keep) => {
    const expected = newestFirst.filter(keep);
    expect(expected.length).toBeGreaterThan(3);

    const first = await api().get('/jobs').query({ enabled });
    expect(first.body.items.map((j: Job) => j.id)).toEqual(expected);
    expect(first.body.items.every((j: Job) => j.enabled === (enabled === 'true'))).toBe(true);

    await expect(walk({ enabled, limit: 3 })).resolves.toEqual(expected);
  });

  it.each([
    ['limit', '0', '0'],
    ['limit', '101', '101'],
    ['limit', '2.5', '2.5'],
    ['limit', 'ten', 'ten'],
    ['enabled', 'yes', 'yes'],
    ['enabled', 'TRUE', 'TRUE'],
    ['cursor', 'not base64 of a cursor', 'not-a-cursor'],
    ['cursor', 'a cursor without a date and uuid', Buffer.from('yesterday|not-a-uuid').toString('base64url')],
    [
      'cursor',
      'a cursor whose date PostgreSQL cannot hold',
      Buffer.from(`-271821-04-20T00:00:00.000Z|${UNKNOWN_ID}`).toString('base64url'),
    ],
    ['sort', 'an unknown parameter', 'name'],
  ])('refuses %s=<%s> with 400 naming it', async (field, _label, value) => {
    const res = await api().get(`/jobs?${field}=${encodeURIComponent(value)}`);

    expect(res.status).toBe(400);
    expectError(res.body, 400, 'Bad Request');
    expect(res.body.message).toContain(field);
  });
});

describe('GET /jobs?name= (search by name)', () => {
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  const names = ['Nightly-Backup', 'nightly_report', '100%-weekly', 'weekly\\sync'];
  const found = async (name: string): Promise<string[]> => {
    const res = await api().get('/jobs').query({ name, limit: 100 });
    expect(res.status).toBe(200);
    return (res.body as Schema<'JobPageResponse'>).items.map((j) => j.name).sort();
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const name of names) await api().post('/jobs').send(validJob({ name })).expect(201);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists the jobs whose name contains the text, ignoring case', async () => {
    await expect(found('NIGHTLY')).resolves.toEqual(['Nightly-Backup', 'nightly_report']);
    await expect(found('weekly')).resolves.toEqual(['100%-weekly', 'weekly\\sync']);
    await expect(found('nothing like it')).resolves.toEqual([]);
  });

  it('takes %, _ and \\ as themselves, not as patterns', async () => {
    await expect(found('%')).resolves.toEqual(['100%-weekly']);
    await expect(found('_')).resolves.toEqual(['nightly_report']);
    await expect(found('\\')).resolves.toEqual(['weekly\\sync']);
  });

  it('pages through the matches only', async () => {
    const first = await api().get('/jobs').query({ name: 'ly', limit: 3 });
    const rest = await api().get('/jobs').query({ name: 'ly', limit: 3, cursor: first.body.nextCursor });
    expect([...first.body.items, ...rest.body.items].map((j: Job) => j.name).sort()).toEqual([...names].sort());
    expect(rest.body.nextCursor).toBeNull();
  });

  it('refuses a name longer than a name can be, with 400 naming it', async () => {
    const res = await api()
      .get('/jobs')
      .query({ name: 'x'.repeat(201) });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('name');
  });
});

describe('GET /jobs?ids= (the jobs a page names, by id)', () => {
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  const listed = async (query: Record<string, unknown>): Promise<string[]> => {
    const res = await api().get('/jobs').query(query);
    expect(res.status).toBe(200);
    return (res.body as Schema<'JobPageResponse'>).items.map((j) => j.name).sort();
  };

  beforeAll(async () => {
    t = await createTestApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists the live jobs among the ids, given by repeating the parameter or by commas; a deleted one is left out', async () => {
    const [a, b, c, gone] = await Promise.all(
      ['ids-a', 'ids-b', 'ids-c', 'ids-gone'].map(
        async (name) => (await api().post('/jobs').send(validJob({ name })).expect(201)).body as Job,
      ),
    );
    await api().delete(`/jobs/${gone!.id}`).expect(204);
    await expect(listed({ ids: [a!.id, c!.id, gone!.id] })).resolves.toEqual(['ids-a', 'ids-c']);
    await expect(listed({ ids: `${b!.id},${c!.id}`, name: 'ids-c' })).resolves.toEqual(['ids-c']);
    await expect(listed({ ids: randomUUID() })).resolves.toEqual([]);
  });

  it.each([
    ['an id that is no UUID', { ids: 'not-a-uuid' }, 'each of ids must be a UUID'],
    ['101 ids', { ids: Array.from({ length: 101 }, () => randomUUID()).join(',') }, 'ids may name at most 100 jobs'],
  ])('refuses %s with 400 naming it', async (_, query, message) => {
    const res = await api().get('/jobs').query(query);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toContain(message);
  });
});
