import request from 'supertest';
import { AUDITED_ACTIONS } from '../../src/shared/application/audited-actions.js';
import type { Schema } from '../support/api-types.js';
import { FakeClock } from '../support/fake-clock.js';
import { jobBody } from '../support/jobs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

interface Change {
  actor: string;
  action: string;
  targetId: string | null;
  createdAt: string;
}

const T0 = new Date('2026-11-30T10:00:00.000Z');
const minute = (n: number) => new Date(T0.getTime() + n * 60_000).toISOString();

describe('GET /audit filters: action, actor, targetId, from and to', () => {
  let t: TestApp;
  const clock = new FakeClock(T0);
  /** Every change made, oldest first, as this test made it. */
  const changes: Change[] = [];
  const secrets: Record<'viewer' | 'operator' | 'admin', string> = { viewer: '', operator: '', admin: '' };
  const jobs: string[] = [];

  const get = (path: string, secret = TEST_ADMIN_TOKEN) =>
    request(t.app.getHttpServer()).get(path).set('Authorization', `Bearer ${secret}`);

  /** One change a minute, so that the window's bounds fall on known events. */
  async function change<Answer = Schema<'JobResponse'>>(
    actor: string,
    secret: string,
    action: string,
    method: 'post' | 'patch',
    path: string,
    body: object = {},
  ): Promise<Answer> {
    const status = action.endsWith('.created') || action === 'execution.triggered' ? 201 : 200;
    clock.set(minute(changes.length));
    const res = await request(t.app.getHttpServer())[method](path).set('Authorization', `Bearer ${secret}`).send(body);
    expect({ action, status: res.status }).toEqual({ action, status });
    const targetId = (res.body as { id?: string }).id ?? path.split('/')[2]!;
    changes.push({ actor, action, targetId, createdAt: clock.now().toISOString() });
    return res.body as Answer;
  }

  /** The whole list for a query (paged by 100), oldest-first changes as the API answers them. */
  async function listed(query: string): Promise<Change[]> {
    const res = await get(`/audit?limit=100&${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    expect(res.body.nextCursor).toBeNull();
    return (res.body as Schema<'AuditPageResponse'>).items.map(({ actor, action, targetId, createdAt }) => ({
      actor,
      action,
      targetId,
      createdAt,
    }));
  }

  const newestFirst = (keep: (c: Change) => boolean) => changes.filter(keep).reverse();

  beforeAll(async () => {
    t = await createTestApp({ clock, asAdmin: false });
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const token = await change<Schema<'CreatedTokenResponse'>>(
        'ORBIT_ADMIN_TOKEN',
        TEST_ADMIN_TOKEN,
        'token.created',
        'post',
        '/tokens',
        { name: `audit-${role}`, role } satisfies Schema<'CreateTokenDto'>,
      );
      secrets[role] = token.token;
    }
    for (let i = 0; i < 5; i++) {
      const job = await change(
        'audit-admin',
        secrets.admin,
        'job.created',
        'post',
        '/jobs',
        jobBody({ name: `audited-${i}`, command: 'true', cronExpression: '0 3 * * *' }),
      );
      jobs.push(job.id);
      const update: Schema<'UpdateJobDto'> = { command: `echo ${i}` };
      await change('audit-admin', secrets.admin, 'job.updated', 'patch', `/jobs/${job.id}`, update);
    }
    const run = await change<Schema<'ExecutionResponse'>>(
      'audit-operator',
      secrets.operator,
      'execution.triggered',
      'post',
      `/jobs/${jobs[0]}/executions`,
    );
    await change('audit-operator', secrets.operator, 'execution.cancelled', 'post', `/executions/${run.id}/cancel`);
    await change('audit-operator', secrets.operator, 'job.paused', 'post', `/jobs/${jobs[0]}/pause`);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('without a filter lists every change, newest first', async () => {
    expect(changes).toHaveLength(3 + 10 + 3);
    expect(await listed('')).toEqual(newestFirst(() => true));
  });

  it.each<[string, (c: Change) => boolean]>([
    ['action=job.created', (c) => c.action === 'job.created'],
    ['action=job.created,execution.cancelled', (c) => ['job.created', 'execution.cancelled'].includes(c.action)],
    ['action=job.updated&action=token.created', (c) => ['job.updated', 'token.created'].includes(c.action)],
    ['action=channel.created', () => false],
    ['actor=audit-operator', (c) => c.actor === 'audit-operator'],
    ['actor=audit', () => false],
    ['actor=AUDIT-ADMIN', () => false],
    ['from=2026-11-30T10:05:00Z', (c) => c.createdAt >= minute(5)],
    ['to=2026-11-30T10:05:00Z', (c) => c.createdAt < minute(5)],
    [
      'from=2026-11-30T11:05:00%2B01:00&to=2026-11-30T10:08:00.000Z',
      (c) => c.createdAt >= minute(5) && c.createdAt < minute(8),
    ],
    ['from=2026-11-30T10:05:00.001Z', (c) => c.createdAt > minute(5)],
    ['from=1000-01-01T00:00:00Z&to=9999-12-31T23:59:59Z', () => true],
  ])('%s', async (query, keep) => {
    expect(await listed(query)).toEqual(newestFirst(keep));
  });

  it('targetId: the changes of one job, and of one execution', async () => {
    const job = jobs[0]!;
    expect(await listed(`targetId=${job}`)).toEqual(newestFirst((c) => c.targetId === job));
    expect((await listed(`targetId=${job}`)).map((c) => c.action)).toEqual([
      'job.paused',
      'job.updated',
      'job.created',
    ]);
    const run = changes.find((c) => c.action === 'execution.triggered')!.targetId;
    expect((await listed(`targetId=${run}`)).map((c) => c.action)).toEqual([
      'execution.cancelled',
      'execution.triggered',
    ]);
  });

  it('filters combine: all of them must hold', async () => {
    const query = `action=job.created,job.updated,job.paused&actor=audit-admin&from=${minute(4)}&to=${minute(9)}`;
    expect(await listed(query)).toEqual(
      newestFirst(
        (c) =>
          c.action.startsWith('job.') &&
          c.actor === 'audit-admin' &&
          c.createdAt >= minute(4) &&
          c.createdAt < minute(9),
      ),
    );
    expect(await listed(`${query}&targetId=${jobs[1]}`)).toEqual(
      newestFirst((c) => c.targetId === jobs[1] && c.createdAt >= minute(4) && c.createdAt < minute(9)),
    );
    expect(await listed(`actor=audit-operator&action=job.created`)).toEqual([]);
  });

  it.each([
    ['action=job.created,job.updated', (c: Change) => c.action === 'job.created' || c.action === 'job.updated'],
    [`actor=audit-admin&to=${minute(11)}`, (c: Change) => c.actor === 'audit-admin' && c.createdAt < minute(11)],
    [`from=${minute(2)}&to=${minute(13)}`, (c: Change) => c.createdAt >= minute(2) && c.createdAt < minute(13)],
  ])(
    'the cursor pages through a filtered list (%s): each page filtered, in order, none repeated',
    async (query, keep) => {
      const paged: Change[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const after: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await get(`/audit?limit=3&${query}${after}`);
        expect(res.status).toBe(200);
        paged.push(
          ...(res.body.items as Change[]).map(({ actor, action, targetId, createdAt }) => ({
            actor,
            action,
            targetId,
            createdAt,
          })),
        );
        cursor = res.body.nextCursor as string | null;
        pages++;
      } while (cursor !== null && pages < 20);
      const expected = newestFirst(keep);
      expect(expected.length).toBeGreaterThan(6);
      expect(pages).toBe(Math.ceil(expected.length / 3));
      expect(paged).toEqual(expected);
    },
  );

  it('a cursor with a `to` before it: the tighter bound holds', async () => {
    const newest = await get('/audit?limit=1');
    const cursor = encodeURIComponent(newest.body.nextCursor as string);
    expect(await listed(`cursor=${cursor}&to=${minute(5)}`)).toEqual(newestFirst((c) => c.createdAt < minute(5)));
    expect(await listed(`cursor=${cursor}&to=${minute(30)}`)).toEqual(newestFirst(() => true).slice(1));
  });

  it.each([
    ['action=job.exploded', 'action', AUDITED_ACTIONS.join(', ')],
    ['action=job.created,JOB.UPDATED', 'action', 'job.created'],
    ['action=', 'action', 'at least one'],
    ['actor=', 'actor', 'empty'],
    ['actor=a&actor=b', 'actor', 'once'],
    ['actor=a%00b', 'actor', 'NUL'],
    [`actor=${'x'.repeat(201)}`, 'actor', '200'],
    ['targetId=', 'targetId', 'empty'],
    ['targetId=%00', 'targetId', 'NUL'],
    ['from=yesterday', 'from', 'ISO 8601'],
    ['from=2026-11-30T10:00:00', 'from', 'offset'],
    ['from=2026-02-30T10:00:00Z', 'from', 'ISO 8601'],
    ['to=1764496800000', 'to', 'ISO 8601'],
    ['to=2026-11-30T10:00:00Z&to=2026-11-30T11:00:00Z', 'to', 'ISO 8601'],
    [`from=${minute(5)}&to=${minute(5)}`, 'from', 'from must be before to'],
    [`from=${minute(6)}&to=${minute(5)}`, 'from', 'from must be before to'],
    ['who=me', 'who', 'not an accepted field'],
  ])('GET /audit?%s → 400 naming %s', async (query, parameter, says) => {
    const res = await get(`/audit?${query}`);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'Bad Request' });
    expect(res.body.message).toContain(parameter);
    expect(res.body.message).toContain(says);
  });

  it.each(['viewer', 'operator'] as const)('as %s: refused, filters or not (admin only)', async (role) => {
    for (const query of ['', '?action=job.created', `?actor=audit-${role}`]) {
      const res = await get(`/audit${query}`, secrets[role]);
      expect({ query, status: res.status }).toEqual({ query, status: 403 });
      expect(res.body.message).toContain('needs the admin role');
    }
  });

  it('an issued admin token reads the filtered trail', async () => {
    const res = await get('/audit?actor=audit-operator', secrets.admin);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(3);
  });
});
