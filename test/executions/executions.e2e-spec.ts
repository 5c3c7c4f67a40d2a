import request from 'supertest';
import type { ActionBody, Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, jobCreator } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { expectErrorBody } from '../support/error-body.js';

const T0 = '2026-11-30T10:00:00.000Z';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const INT32_MAX = 2_147_483_647;
const INT32_MIN = -2_147_483_648;

/** A body or query sent as it is: the exitCode tests send wrong ones on purpose. */
type Body = Record<string, unknown>;
type Job = Schema<'JobResponse'>;
type Execution = Schema<'ExecutionResponse'>;
type Action = 'start' | 'succeed' | 'fail' | 'cancel';

/** The refusals are the contract: the domain's exact messages. */
const REFUSAL: Record<Action, string> = {
  start: 'Only queued executions can be started',
  succeed: 'Only running executions can succeed',
  fail: 'Only running executions can fail',
  cancel: 'Only queued or running executions can be cancelled',
};

const BODY: Record<Action, ActionBody> = {
  start: {},
  succeed: { exitCode: 0 },
  fail: { exitCode: 1, errorMessage: 'Backup command failed' },
  cancel: {},
};

/** How an execution reaches each state through the API. */
const HISTORIES: Record<string, Action[]> = {
  QUEUED: [],
  RUNNING: ['start'],
  SUCCEEDED: ['start', 'succeed'],
  FAILED: ['start', 'fail'],
  'CANCELLED while queued': ['cancel'],
  'CANCELLED while running': ['start', 'cancel'],
};

/** The lifecycle: QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED, and QUEUED → CANCELLED. */
const LEGAL: Array<[string, Action, string]> = [
  ['QUEUED', 'start', 'RUNNING'],
  ['QUEUED', 'cancel', 'CANCELLED'],
  ['RUNNING', 'succeed', 'SUCCEEDED'],
  ['RUNNING', 'fail', 'FAILED'],
  ['RUNNING', 'cancel', 'CANCELLED'],
];

const ACTIONS: Action[] = ['start', 'succeed', 'fail', 'cancel'];
const FORBIDDEN: Array<[string, Action, string]> = Object.keys(HISTORIES).flatMap((state) =>
  ACTIONS.filter((action) => !LEGAL.some(([from, legal]) => from === state && legal === action)).map(
    (action): [string, Action, string] => [state, action, REFUSAL[action]],
  ),
);

/** Follows nextCursor of GET /executions to the end; `betweenPages` runs after each page (rows arriving meanwhile). */
async function walkExecutions(
  http: () => ReturnType<typeof request>,
  query: Body,
  betweenPages: () => Promise<unknown> = () => Promise.resolve(),
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res = await http()
      .get('/executions')
      .query(cursor ? { ...query, cursor } : query);
    expect(res.status).toBe(200);
    seen.push(...res.body.items.map((e: Execution) => e.id));
    cursor = res.body.nextCursor;
    if (cursor === null) return seen;
    await betweenPages();
  }
  throw new Error('paging never ended');
}

const expectError = expectErrorBody;

describe('executions over HTTP', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  let job: Job;
  const api = () => request(t.app.getHttpServer());

  const newJob = jobCreator(() => t, { cronExpression: '0 * * * *' });

  async function queue(jobId: unknown = job.id): Promise<Execution> {
    const res = await api().post(`/jobs/${jobId}/executions`);
    expect(res.status).toBe(201);
    return res.body as Execution;
  }

  function act(id: unknown, action: Action, body: Body = BODY[action]) {
    return api().post(`/executions/${id}/${action}`).send(body);
  }

  /** A fresh execution taken through `history`, each step one second after the previous one. */
  async function executionIn(state: string): Promise<Execution> {
    let execution = await queue();
    const history = HISTORIES[state];
    if (!history) throw new Error(`no history leads to ${state}`);
    for (const action of history) {
      clock.advance(1000);
      const res = await act(execution.id, action);
      expect(res.status).toBe(200);
      execution = res.body as Execution;
    }
    return execution;
  }

  async function read(id: unknown): Promise<Execution> {
    const res = await api().get(`/executions/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return res.body as Execution;
  }

  beforeAll(async () => {
    t = await createTestApp({ clock });
    job = await newJob({ command: 'backup.sh --full', maxRetries: 0, timeoutSeconds: 120 });
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => {
    clock.set(T0);
  });

  describe('POST /jobs/:id/executions', () => {
    it('queues a manual first attempt that copies the job configuration', async () => {
      const copying = await newJob({
        command: 'sync --all',
        maxRetries: 3,
        timeoutSeconds: 45,
        maxDurationSeconds: 30,
      });

      const res = await api().post(`/jobs/${copying.id}/executions`);

      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        jobId: copying.id,
        command: 'sync --all',
        maxRetries: 3,
        timeoutSeconds: 45,
        status: 'QUEUED',
        attempt: 1,
        trigger: 'MANUAL',
        scheduledFor: null,
        retryOf: null,
        dueAt: T0,
        createdAt: T0,
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        errorMessage: null,
        workerId: null,
        workerSelector: {},
        pinnedWorker: null,
        maxConcurrent: null,
        concurrencyGroup: null,
        priority: 0,
        waitingFor: null,
        parameters: {},
        triggeredBy: null,
        maxDurationSeconds: 30,
        cancelledBy: null,
      });
      expect(await read(res.body.id)).toEqual(res.body);
    });

    it('a later change of the job does not rewrite the execution', async () => {
      const changing = await newJob({ command: 'v1', maxRetries: 1, timeoutSeconds: 30 });
      const execution = await queue(changing.id);

      await api().patch(`/jobs/${changing.id}`).send({ command: 'v2', maxRetries: 9, timeoutSeconds: 999 }).expect(200);

      expect(await read(execution.id)).toEqual(execution);
      expect((await queue(changing.id)).command).toBe('v2');
    });

    it('is allowed while the job is disabled', async () => {
      const disabled = await newJob({ enabled: false });

      const res = await api().post(`/jobs/${disabled.id}/executions`);

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ jobId: disabled.id, status: 'QUEUED', trigger: 'MANUAL' });
    });

    it('answers 404 for an unknown job', async () => {
      const res = await api().post(`/jobs/${UNKNOWN_ID}/executions`);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
    });

    it('answers 400 for a malformed job id', async () => {
      const res = await api().post('/jobs/not-a-uuid/executions');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });

  describe('the lifecycle', () => {
    it('start: QUEUED → RUNNING, recording startedAt', async () => {
      const execution = await queue();
      clock.advance(2000);

      const res = await act(execution.id, 'start');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...execution, status: 'RUNNING', startedAt: '2026-11-30T10:00:02.000Z' });
      expect(await read(execution.id)).toEqual(res.body);
    });

    it('succeed: RUNNING → SUCCEEDED, recording the exit code and finishedAt', async () => {
      const running = await executionIn('RUNNING');
      clock.advance(3000);

      const res = await act(running.id, 'succeed', { exitCode: 0 });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...running,
        status: 'SUCCEEDED',
        exitCode: 0,
        finishedAt: '2026-11-30T10:00:04.000Z',
      });
      expect(await read(running.id)).toEqual(res.body);
    });

    it('succeed does not require the exit code to be zero', async () => {
      const running = await executionIn('RUNNING');
      const res = await act(running.id, 'succeed', { exitCode: 3 });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'SUCCEEDED', exitCode: 3 });
    });

    it('fail: RUNNING → FAILED, recording the exit code, the message and finishedAt', async () => {
      const running = await executionIn('RUNNING');
      clock.advance(3000);

      const res = await act(running.id, 'fail', { exitCode: 2, errorMessage: 'disk full' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...running,
        status: 'FAILED',
        exitCode: 2,
        errorMessage: 'disk full',
        finishedAt: '2026-11-30T10:00:04.000Z',
      });
      expect(await read(running.id)).toEqual(res.body);
    });

    it('fail does not require the exit code to be nonzero', async () => {
      const running = await executionIn('RUNNING');
      const res = await act(running.id, 'fail', { exitCode: 0, errorMessage: 'output was empty' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'FAILED', exitCode: 0 });
    });

    it('cancel while queued: CANCELLED with finishedAt and never a startedAt', async () => {
      const execution = await queue();
      clock.advance(1000);

      const res = await act(execution.id, 'cancel');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...execution,
        status: 'CANCELLED',
        finishedAt: '2026-11-30T10:00:01.000Z',
        cancelledBy: { by: 'caller', actor: 'ORBIT_ADMIN_TOKEN' },
      });
      expect(res.body.startedAt).toBeNull();
    });

    it('cancel while running: CANCELLED, keeping startedAt, with no exit code', async () => {
      const running = await executionIn('RUNNING');
      clock.advance(1000);

      const res = await act(running.id, 'cancel');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...running,
        status: 'CANCELLED',
        finishedAt: '2026-11-30T10:00:02.000Z',
        cancelledBy: { by: 'caller', actor: 'ORBIT_ADMIN_TOKEN' },
      });
      expect(res.body.startedAt).toBe('2026-11-30T10:00:01.000Z');
      expect(res.body.exitCode).toBeNull();
    });

    it.each(LEGAL)('%s → %s is allowed and leads to %s', async (state, action, to) => {
      const execution = await executionIn(state);

      const res = await act(execution.id, action);

      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
      expect((await read(execution.id)).status).toBe(to);
    });

    it.each(FORBIDDEN)('%s then %s is refused with 409 %p and changes nothing', async (state, action, message) => {
      const execution = await executionIn(state);
      const before = await read(execution.id);
      clock.advance(1000);

      const res = await act(execution.id, action);

      expect(res.status).toBe(409);
      expectError(res.body, 409, 'Conflict', message);
      expect(await read(execution.id)).toEqual(before);
    });

    it.each(Object.keys(HISTORIES).filter((s) => s !== 'RUNNING'))(
      '%s then fail without a message is still 409 "Only running executions can fail": the state is checked first',
      async (state) => {
        const execution = await executionIn(state);

        const res = await act(execution.id, 'fail', { exitCode: 1 });

        expect(res.status).toBe(409);
        expectError(res.body, 409, 'Conflict', 'Only running executions can fail');
      },
    );

    it.each([
      ['without a message', { exitCode: 1 }],
      ['with an empty message', { exitCode: 1, errorMessage: '' }],
      ['with a blank message', { exitCode: 1, errorMessage: ' \t\n ' }],
      ['with a null message', { exitCode: 1, errorMessage: null }],
      ['with a message that is not a string', { exitCode: 1, errorMessage: 42 }],
    ])(
      'RUNNING then fail %s is refused with 400 "Error message must not be blank" and stays RUNNING',
      async (_label, body) => {
        const running = await executionIn('RUNNING');

        const res = await act(running.id, 'fail', body);

        expect(res.status).toBe(400);
        expectError(res.body, 400, 'Bad Request', 'Error message must not be blank');
        expect(await read(running.id)).toEqual(running);
      },
    );

    it('RUNNING then fail with a NUL character in the message is refused with 400 naming errorMessage, never a 500', async () => {
      const running = await executionIn('RUNNING');

      const res = await act(running.id, 'fail', { exitCode: 1, errorMessage: 'bad \u0000 byte' });

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain('errorMessage');
      expect(await read(running.id)).toEqual(running);
    });

    it('a failure of a job without retries queues no further attempt', async () => {
      const once = await newJob({ maxRetries: 0 });
      const execution = await queue(once.id);
      await act(execution.id, 'start').expect(200);
      await act(execution.id, 'fail').expect(200);

      const list = await api().get('/executions').query({ jobId: once.id });
      expect(list.body.items.map((e: Execution) => [e.id, e.status])).toEqual([[execution.id, 'FAILED']]);
    });
  });

  describe('exitCode', () => {
    const INVALID_EXIT_CODES: Array<[string, Body]> = [
      ['missing', {}],
      ['a string', { exitCode: '0' }],
      ['a fraction', { exitCode: 1.5 }],
      ['2^31', { exitCode: INT32_MAX + 1 }],
      ['below -2^31', { exitCode: INT32_MIN - 1 }],
      ['null', { exitCode: null }],
      ['a boolean', { exitCode: true }],
      ['an array', { exitCode: [0] }],
    ];

    it.each(INVALID_EXIT_CODES)('succeed with an exit code that is %s is 400 naming exitCode', async (_label, body) => {
      const running = await executionIn('RUNNING');

      const res = await act(running.id, 'succeed', body);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain('exitCode');
      expect(await read(running.id)).toEqual(running);
    });

    it.each(INVALID_EXIT_CODES)('fail with an exit code that is %s is 400 naming exitCode', async (_label, body) => {
      const running = await executionIn('RUNNING');

      const res = await act(running.id, 'fail', { errorMessage: 'boom', ...body });

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect(res.body.message).toContain('exitCode');
      expect(await read(running.id)).toEqual(running);
    });

    it.each([INT32_MAX, INT32_MIN, -1])('accepts the 32-bit exit code %p', async (exitCode) => {
      const succeeding = await executionIn('RUNNING');
      const failing = await executionIn('RUNNING');

      const succeeded = await act(succeeding.id, 'succeed', { exitCode });
      const failed = await act(failing.id, 'fail', { exitCode, errorMessage: 'boom' });

      expect(succeeded.status).toBe(200);
      expect(succeeded.body.exitCode).toBe(exitCode);
      expect(failed.status).toBe(200);
      expect(failed.body.exitCode).toBe(exitCode);
      expect((await read(succeeding.id)).exitCode).toBe(exitCode);
    });

    it.each(['succeed', 'fail'] as const)('%s refuses an unknown field in the body, naming it', async (action) => {
      const running = await executionIn('RUNNING');

      const res = await act(running.id, action, { ...BODY[action], reason: 'because' });

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request', 'reason is not an accepted field');
      expect((await read(running.id)).status).toBe('RUNNING');
    });

    it('a body that is not valid JSON is 400', async () => {
      const running = await executionIn('RUNNING');

      const res = await api()
        .post(`/executions/${running.id}/succeed`)
        .set('Content-Type', 'application/json')
        .send('{"exitCode": ');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
      expect((await read(running.id)).status).toBe('RUNNING');
    });
  });

  describe('unknown and malformed ids', () => {
    it('GET /executions/:id answers 404 for an unknown id', async () => {
      const res = await api().get(`/executions/${UNKNOWN_ID}`);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
      expect(res.body.message).toContain(UNKNOWN_ID);
    });

    it('GET /executions/:id answers 400 for a malformed id', async () => {
      const res = await api().get('/executions/not-a-uuid');

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });

    it.each(ACTIONS)('POST /executions/:id/%s answers 404 for an unknown id', async (action) => {
      const res = await act(UNKNOWN_ID, action);

      expect(res.status).toBe(404);
      expectError(res.body, 404, 'Not Found');
    });

    it.each(ACTIONS)('POST /executions/:id/%s answers 400 for a malformed id', async (action) => {
      const res = await act('12345', action);

      expect(res.status).toBe(400);
      expectError(res.body, 400, 'Bad Request');
    });
  });

  describe('two concurrent requests on one execution', () => {
    const ROUNDS = 20;

    it(`succeed vs cancel on a RUNNING execution: exactly one wins and the final state is the winner's (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const running = await executionIn('RUNNING');

        const [succeeded, cancelled] = await Promise.all([
          act(running.id, 'succeed', { exitCode: 0 }),
          act(running.id, 'cancel'),
        ]);

        expect([succeeded.status, cancelled.status].sort()).toEqual([200, 409]);
        const [winner, loser, loserAction] =
          succeeded.status === 200
            ? [succeeded, cancelled, 'cancel' as const]
            : [cancelled, succeeded, 'succeed' as const];
        expectError(loser.body, 409, 'Conflict', REFUSAL[loserAction]);
        expect(winner.body.status).toBe(loserAction === 'cancel' ? 'SUCCEEDED' : 'CANCELLED');
        expect(await read(running.id)).toEqual(winner.body);
      }
    });

    it(`start vs start on a QUEUED execution: one 200, one 409 (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const execution = await queue();

        const answers = await Promise.all([act(execution.id, 'start'), act(execution.id, 'start')]);

        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        const winner = answers.find((a) => a.status === 200)!;
        const loser = answers.find((a) => a.status === 409)!;
        expectError(loser.body, 409, 'Conflict', REFUSAL.start);
        expect(await read(execution.id)).toEqual(winner.body);
        expect(winner.body.status).toBe('RUNNING');
      }
    });

    it('succeed vs fail vs cancel on a RUNNING execution: one 200, two 409 with the domain refusals (10 rounds)', async () => {
      for (let round = 0; round < 10; round++) {
        const running = await executionIn('RUNNING');
        const actions: Action[] = ['succeed', 'fail', 'cancel'];

        const results = await Promise.all(
          actions.map(async (action) => ({ action, answer: await act(running.id, action) })),
        );

        expect(results.map(({ answer }) => answer.status).sort()).toEqual([200, 409, 409]);
        for (const { action, answer } of results) {
          if (answer.status === 409) expectError(answer.body, 409, 'Conflict', REFUSAL[action]);
        }
        const winner = results.find(({ answer }) => answer.status === 200);
        expect(await read(running.id)).toEqual(winner?.answer.body);
      }
    });

    it(`fail vs succeed on a RUNNING execution: exactly one wins (${ROUNDS} rounds)`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const running = await executionIn('RUNNING');

        const answers = await Promise.all([act(running.id, 'fail'), act(running.id, 'succeed')]);

        expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
        const winner = answers.find((a) => a.status === 200)!;
        expect(await read(running.id)).toEqual(winner.body);
      }
    });
  });
});

describe('GET /executions (listing, on its own database)', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;
  const api = () => request(t.app.getHttpServer());
  let jobA: string;
  let jobB: string;
  /** Every execution created in beforeAll, newest first. */
  let all: Execution[] = [];

  async function queue(jobId: string): Promise<Execution> {
    clock.advance(1000);
    const res = await api().post(`/jobs/${jobId}/executions`);
    expect(res.status).toBe(201);
    return res.body as Execution;
  }

  async function page(query: Body): Promise<{ ids: string[]; nextCursor: string | null; items: Execution[] }> {
    const res = await api().get('/executions').query(query);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return { ids: res.body.items.map((e: Execution) => e.id), nextCursor: res.body.nextCursor, items: res.body.items };
  }

  const walk = (query: Body) => walkExecutions(api, query);

  const ids = (rows: Execution[]) => rows.map((e) => e.id);

  beforeAll(async () => {
    t = await createTestApp({ clock });
    jobA = (await createJob(t)).id;
    jobB = (await createJob(t)).id;
    for (let i = 0; i < 25; i++) {
      const execution = await queue(i % 2 === 0 ? jobA : jobB);
      if (i % 5 === 1) await api().post(`/executions/${execution.id}/start`).expect(200);
      all.unshift(execution);
    }
    all = await Promise.all(all.map(async (e) => (await api().get(`/executions/${e.id}`)).body as Execution));
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists newest first, 20 by default, with a cursor to the rest', async () => {
    const first = await page({});

    expect(first.ids).toEqual(ids(all).slice(0, 20));
    expect(first.items[0]).toEqual(all[0]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await page({ cursor: first.nextCursor });
    expect(second.ids).toEqual(ids(all).slice(20));
    expect(second.nextCursor).toBeNull();
  });

  it('accepts limit=1 and limit=100', async () => {
    expect((await page({ limit: 1 })).ids).toEqual(ids(all).slice(0, 1));
    expect((await page({ limit: 100 })).ids).toEqual(ids(all));
  });

  it('a page that holds the last execution has no next cursor', async () => {
    const exact = await page({ limit: 25 });

    expect(exact.ids).toHaveLength(25);
    expect(exact.nextCursor).toBeNull();
  });

  it('filters by job', async () => {
    const expected = ids(all.filter((e) => e.jobId === jobA));

    expect((await page({ jobId: jobA })).ids).toEqual(expected);
  });

  it('filters by status', async () => {
    const expected = ids(all.filter((e) => e.status === 'RUNNING'));
    expect(expected.length).toBeGreaterThan(2);

    const res = await page({ status: 'RUNNING' });
    expect(res.ids).toEqual(expected);
    expect(res.items.every((e) => e.status === 'RUNNING')).toBe(true);
  });

  it('filters by job and status together, across pages with the same filters', async () => {
    const expected = ids(all.filter((e) => e.jobId === jobB && e.status === 'QUEUED'));
    expect(expected.length).toBeGreaterThan(4);

    await expect(walk({ jobId: jobB, status: 'QUEUED', limit: 2 })).resolves.toEqual(expected);
  });

  it('an unknown job has no executions', async () => {
    const res = await page({ jobId: UNKNOWN_ID });

    expect(res.ids).toEqual([]);
    expect(res.nextCursor).toBeNull();
  });

  it('paging visits every execution once, in order', async () => {
    await expect(walk({ limit: 3 })).resolves.toEqual(ids(all));
  });

  it('paging has no duplicates and no gaps while new executions are queued between page fetches', async () => {
    const local = await createTestApp({ clock });
    try {
      const localApi = () => request(local.app.getHttpServer());
      const jobRes = await localApi().post('/jobs').send({ name: 'paged', command: 'echo', cronExpression: '@daily' });
      const queueLocal = async () => {
        clock.advance(1000);
        const res = await localApi().post(`/jobs/${jobRes.body.id}/executions`);
        expect(res.status).toBe(201);
        return res.body.id as string;
      };
      const before: string[] = [];
      for (let i = 0; i < 12; i++) before.unshift(await queueLocal());

      const seen = await walkExecutions(localApi, { limit: 5 }, async () => {
        await queueLocal();
        await queueLocal();
      });

      expect(seen).toEqual(before);
    } finally {
      await local.close();
    }
  });

  it('paging has no duplicates and no gaps among executions created in the same instant', async () => {
    const local = await createTestApp({ clock: new FakeClock(new Date(T0)) });
    try {
      const localApi = () => request(local.app.getHttpServer());
      const jobRes = await localApi().post('/jobs').send({ name: 'frozen', command: 'echo', cronExpression: '@daily' });
      const queueLocal = async () =>
        (await localApi().post(`/jobs/${jobRes.body.id}/executions`).expect(201)).body.id as string;
      const before: string[] = [];
      for (let i = 0; i < 12; i++) before.push(await queueLocal());
      const newestFirst = [...before].sort().reverse();

      const seen = await walkExecutions(localApi, { limit: 5 }, queueLocal);

      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => before.includes(id))).toEqual(newestFirst);
    } finally {
      await local.close();
    }
  });

  it.each([
    ['limit', '0', '0'],
    ['limit', '101', '101'],
    ['limit', '1.5', '1.5'],
    ['limit', 'many', 'many'],
    ['status', 'BOGUS', 'BOGUS'],
    ['status', 'queued', 'queued'],
    ['jobId', 'not-a-uuid', 'not-a-uuid'],
    ['cursor', 'not base64 of a cursor', 'garbage'],
    ['cursor', 'a cursor without a date', Buffer.from(`not-a-date|${UNKNOWN_ID}`).toString('base64url')],
    [
      'cursor',
      'a cursor whose date PostgreSQL cannot hold',
      Buffer.from(`-271821-04-20T00:00:00.000Z|${UNKNOWN_ID}`).toString('base64url'),
    ],
    ['order', 'an unknown parameter', 'asc'],
  ])('refuses %s=<%s> with 400 naming it', async (field, _label, value) => {
    const res = await api().get(`/executions?${field}=${encodeURIComponent(value)}`);

    expect(res.status).toBe(400);
    expectError(res.body, 400, 'Bad Request');
    expect(res.body.message).toContain(field);
  });
});
