import { createHash } from 'node:crypto';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { expectErrorBody } from '../support/error-body.js';
import {
  AuditEvent,
  bearer,
  Body,
  ENDPOINTS,
  Execution,
  fixtures,
  Fixtures,
  Job,
  label,
  Method,
  PUBLIC_ROUTES,
  Role,
  ROLES,
  send,
  UNKNOWN_ID,
  validJob,
} from '../support/endpoints.js';

const UNKNOWN_SECRET = `orbit_${'A'.repeat(43)}`;

const rank = (role: Role): number => ROLES.indexOf(role);
const BELOW = ENDPOINTS.flatMap((e) => ROLES.filter((r) => rank(r) < rank(e.min)).map((role) => ({ e, role })));
const ALLOWED = ENDPOINTS.flatMap((e) => ROLES.filter((r) => rank(r) >= rank(e.min)).map((role) => ({ e, role })));

/** Authorization headers that must never get in: absent, malformed, unknown, a real secret in the wrong scheme. */
const REFUSED_HEADERS: Array<[string, string | undefined]> = [
  ['no header', undefined],
  ['Basic x', 'Basic x'],
  ['Bearer', 'Bearer'],
  ['Bearer a b', 'Bearer a b'],
  ['Bearer with an empty token', 'Bearer '],
  ['an unknown token', `Bearer ${UNKNOWN_SECRET}`],
  ['the admin secret without a scheme', TEST_ADMIN_TOKEN],
  ['the admin secret as Basic', `Basic ${TEST_ADMIN_TOKEN}`],
  ['the admin secret with a suffix', `Bearer ${TEST_ADMIN_TOKEN}x`],
];

function expectError(res: request.Response, statusCode: number, error: string): void {
  expect(res.status).toBe(statusCode);
  expectErrorBody(res.body, statusCode, error);
}

/** Every row of every table in the public schema, as text: any write shows up as a difference. */
async function snapshot(db: TestDatabase): Promise<Record<string, string>> {
  const tables = await db.sql(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const result: Record<string, string> = {};
  for (const { table_name: table } of tables.rows as Array<{ table_name: string }>) {
    const rows = await db.sql(`SELECT t::text AS row FROM "${table}" t ORDER BY 1`);
    result[table] = (rows.rows as Array<{ row: string }>).map((r) => r.row).join('\n');
  }
  return result;
}

describe('authentication and roles', () => {
  let t: TestApp;
  let fx: Fixtures;
  /** The secret of an issued token of each role. */
  const secrets = {} as Record<Role, string>;

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false, env: { ORBIT_ALERTS_ALLOW_PRIVATE: 'true' } });
    fx = fixtures(t);
    for (const role of ROLES) secrets[role] = (await fx.token(role)).token;
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('the role matrix', () => {
    it('covers every documented endpoint', async () => {
      const res = await request(t.app.getHttpServer()).get('/docs-json');
      expect(res.status).toBe(200);
      const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();
      expect(documented).toEqual([...ENDPOINTS.map(label), ...PUBLIC_ROUTES].sort());
    });

    it.each(ENDPOINTS.map((e) => [label(e), e] as const))(
      '%s: no, malformed or unknown token → 401, and nothing changes',
      async (_, e) => {
        const target = await e.target(fx);
        const before = await snapshot(t.db);
        for (const [name, header] of REFUSED_HEADERS) {
          const res = await send(t, e.method, target.path, header, target.body);
          expect({ header: name, status: res.status }).toEqual({ header: name, status: 401 });
          expectError(res, 401, 'Unauthorized');
        }
        expect(await snapshot(t.db)).toEqual(before);
      },
    );

    it.each(BELOW.map(({ e, role }) => [label(e), role, e] as const))(
      '%s as %s → 403 naming the role it needs, and nothing changes',
      async (_, role, e) => {
        const target = await e.target(fx);
        const before = await snapshot(t.db);

        const res = await send(t, e.method, target.path, bearer(secrets[role]), target.body);

        expectError(res, 403, 'Forbidden');
        expect(res.body.message).toContain(`needs the ${e.min} role`);
        expect(await snapshot(t.db)).toEqual(before);
      },
    );

    it.each(ALLOWED.map(({ e, role }) => [label(e), role, e] as const))(
      '%s as %s → its real answer',
      async (_, role, e) => {
        const target = await e.target(fx);

        const res = await send(t, e.method, target.path, bearer(secrets[role]), target.body);

        expect({ status: res.status, body: res.body as unknown }).toEqual({
          status: e.success,
          body: expect.anything(),
        });
      },
    );

    it('GET /auth/me tells each token its own name and role', async () => {
      for (const role of ROLES) {
        const issued = await fx.token(role);
        const res = await send(t, 'get', '/auth/me', bearer(issued.token));
        expect({ status: res.status, body: res.body as unknown }).toEqual({
          status: 200,
          body: {
            kind: 'token',
            tokenId: issued.id,
            userId: null,
            name: issued.name,
            email: null,
            role,
            admin: role === 'admin',
            teams: [],
          },
        });
      }
      const admin = await send(t, 'get', '/auth/me', bearer(TEST_ADMIN_TOKEN));
      expect(admin.body).toMatchObject({
        kind: 'token',
        tokenId: null,
        name: expect.any(String),
        role: 'admin',
        admin: true,
      });
    });

    it('ORBIT_ADMIN_TOKEN is an admin', async () => {
      const res = await send(t, 'get', '/audit', bearer(TEST_ADMIN_TOKEN));
      expect(res.status).toBe(200);
    });

    it('a domain error still answers for an allowed role (unknown ids → 404)', async () => {
      const res = await send(t, 'get', `/jobs/${UNKNOWN_ID}`, bearer(secrets.viewer));
      expectError(res, 404, 'Not Found');
      const cancel = await send(t, 'post', `/executions/${UNKNOWN_ID}/cancel`, bearer(secrets.operator));
      expectError(cancel, 404, 'Not Found');
    });

    it('authentication comes before validation: a bad id or body without a token is 401, with too low a role 403', async () => {
      expectError(await send(t, 'get', '/jobs/not-a-uuid'), 401, 'Unauthorized');
      expectError(await send(t, 'post', '/jobs', undefined, { bogus: 1 }), 401, 'Unauthorized');
      expectError(await send(t, 'patch', '/jobs/not-a-uuid', bearer(secrets.operator), { bogus: 1 }), 403, 'Forbidden');
      expectError(await send(t, 'post', '/tokens', bearer(secrets.operator), { role: 'root' }), 403, 'Forbidden');
    });

    it('the scheme is case-insensitive but the token is not', async () => {
      expect((await send(t, 'get', '/jobs', `bearer ${secrets.viewer}`)).status).toBe(200);
      expectError(await send(t, 'get', '/jobs', bearer(secrets.viewer.toUpperCase())), 401, 'Unauthorized');
    });
  });

  describe('tokens', () => {
    it('POST /tokens answers the secret once, with at least 128 random bits', async () => {
      const res = await send(t, 'post', '/tokens', bearer(TEST_ADMIN_TOKEN), { name: 'ci', role: 'operator' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'ci',
        role: 'operator',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        team: null,
        userId: null,
        expiresAt: null,
        token: expect.any(String),
      });
      const random = (res.body.token as string).replace(/^[a-z]+_/, '');
      expect(random).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(random, 'base64url').length).toBeGreaterThanOrEqual(16);
    });

    it('issues a different secret every time', async () => {
      const issued = await Promise.all([1, 2, 3, 4, 5].map(() => fx.token('viewer')));
      expect(new Set(issued.map((b) => b.token)).size).toBe(5);
    });

    it('GET /tokens lists live tokens newest first, without any secret', async () => {
      const issued = await fx.token('viewer');
      const res = await send(t, 'get', '/tokens?limit=100', bearer(TEST_ADMIN_TOKEN));

      expect(res.status).toBe(200);
      expect(res.body.items[0]).toEqual({
        id: issued.id,
        name: issued.name,
        role: 'viewer',
        createdAt: issued.createdAt,
        team: null,
        userId: null,
        expiresAt: null,
      });
      for (const item of (res.body as Schema<'TokenPageResponse'>).items) {
        expect(Object.keys(item).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'name', 'role', 'team', 'userId']);
      }
      for (const secret of [...Object.values(secrets), issued.token]) expect(res.text).not.toContain(secret);
      const times = (res.body as Schema<'TokenPageResponse'>).items.map((i) => Date.parse(i.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('DELETE /tokens/:id revokes at once: 204, then the token is 401 and gone from the list', async () => {
      const issued = await fx.token('admin');
      expect((await send(t, 'get', '/jobs', bearer(issued.token))).status).toBe(200);

      const res = await send(t, 'delete', `/tokens/${issued.id}`, bearer(TEST_ADMIN_TOKEN));

      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await send(t, 'get', '/jobs', bearer(issued.token)), 401, 'Unauthorized');
      const list = await send(t, 'get', '/tokens?limit=100', bearer(TEST_ADMIN_TOKEN));
      expect((list.body as Schema<'TokenPageResponse'>).items.map((i) => i.id)).not.toContain(issued.id);
    });

    it('DELETE /tokens/:id of an unknown or already revoked token → 404, of a malformed id → 400', async () => {
      const issued = await fx.token('viewer');
      expect((await send(t, 'delete', `/tokens/${issued.id}`, bearer(TEST_ADMIN_TOKEN))).status).toBe(204);

      expectError(await send(t, 'delete', `/tokens/${issued.id}`, bearer(TEST_ADMIN_TOKEN)), 404, 'Not Found');
      expectError(await send(t, 'delete', `/tokens/${UNKNOWN_ID}`, bearer(TEST_ADMIN_TOKEN)), 404, 'Not Found');
      expectError(await send(t, 'delete', '/tokens/not-a-uuid', bearer(TEST_ADMIN_TOKEN)), 400, 'Bad Request');
    });

    it.each<[string, Body]>([
      ['no name', { role: 'viewer' }],
      ['a blank name', { name: '   ', role: 'viewer' }],
      ['a name of 101 characters', { name: 'x'.repeat(101), role: 'viewer' }],
      ['a name that is not a string', { name: 42, role: 'viewer' }],
      ['no role', { name: 'x' }],
      ['an unknown role', { name: 'x', role: 'root' }],
      ['a role of another case', { name: 'x', role: 'Admin' }],
    ])('POST /tokens with %s → 400, and nothing is written', async (_, body) => {
      const before = await snapshot(t.db);
      expectError(await send(t, 'post', '/tokens', bearer(TEST_ADMIN_TOKEN), body), 400, 'Bad Request');
      expect(await snapshot(t.db)).toEqual(before);
    });
  });

  describe('the database never holds a plain token', () => {
    it('no column of any row holds an issued secret; token_hash is its SHA-256', async () => {
      const issued = await Promise.all(ROLES.flatMap((role) => [fx.token(role), fx.token(role)]));
      const revoked = issued[0]!;
      expect((await send(t, 'delete', `/tokens/${revoked.id}`, bearer(TEST_ADMIN_TOKEN))).status).toBe(204);
      const allSecrets = [...issued.map((b) => b.token), ...Object.values(secrets), TEST_ADMIN_TOKEN];

      const columns = await t.db.sql(
        `SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = 'public'
            AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED')`,
      );
      expect(columns.rows.length).toBeGreaterThan(0);
      expect(columns.rows).toEqual(expect.arrayContaining([{ table_name: 'api_tokens', column_name: 'token_hash' }]));
      for (const { table_name: table, column_name: column } of columns.rows as Array<Record<string, string>>) {
        for (const secret of allSecrets) {
          const found = await t.db.sql(
            `SELECT count(*)::int AS n FROM "${table}" WHERE strpos("${column}"::text, $1) > 0`,
            [secret],
          );
          expect({ table, column, secret, rows: found.rows[0].n }).toEqual({ table, column, secret, rows: 0 });
        }
      }

      const tables = await t.db.sql(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      for (const { table_name: table } of tables.rows as Array<{ table_name: string }>) {
        const rows = await t.db.sql(`SELECT t::text AS row FROM "${table}" t`);
        const text = (rows.rows as Array<{ row: string }>).map((r) => r.row).join('\n');
        for (const secret of allSecrets)
          expect({ table, leaked: text.includes(secret) }).toEqual({ table, leaked: false });
      }

      for (const token of issued) {
        const row = await t.db.sql(`SELECT token_hash FROM api_tokens WHERE id = $1`, [token.id]);
        expect(row.rows).toEqual([
          {
            token_hash: createHash('sha256').update(token.token, 'utf8').digest('hex'),
          },
        ]);
      }
    });
  });
});

describe('revocation reaches every node at once', () => {
  let shared: TestDatabase;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    shared = await createTestDatabase();
    a = await createTestApp({ db: shared, asAdmin: false });
    b = await createTestApp({ db: shared, asAdmin: false });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await shared?.drop();
  });

  it('the request right after DELETE /tokens/:id is 401 on the node that revoked it and on another one', async () => {
    const issued = await fixtures(a).token('operator');
    expect((await send(a, 'get', '/jobs', bearer(issued.token))).status).toBe(200);
    expect((await send(b, 'get', '/jobs', bearer(issued.token))).status).toBe(200);

    expect((await send(a, 'delete', `/tokens/${issued.id}`, bearer(TEST_ADMIN_TOKEN))).status).toBe(204);

    expectError(await send(a, 'get', '/jobs', bearer(issued.token)), 401, 'Unauthorized');
    expectError(await send(b, 'get', '/jobs', bearer(issued.token)), 401, 'Unauthorized');
    expectError(await send(b, 'get', '/executions', bearer(issued.token)), 401, 'Unauthorized');
  });

  it('a token issued on one node works on the other at once', async () => {
    const issued = await fixtures(b).token('viewer');
    expect((await send(a, 'get', '/executions', bearer(issued.token))).status).toBe(200);
    expect((await send(b, 'delete', `/tokens/${issued.id}`, bearer(TEST_ADMIN_TOKEN))).status).toBe(204);
    expectError(await send(a, 'get', '/executions', bearer(issued.token)), 401, 'Unauthorized');
  });
});

describe('the audit trail', () => {
  let t: TestApp;
  const api = (secret: string, method: Method, path: string, body?: Body) =>
    send(t, method, path, bearer(secret), body);
  const admin = (method: Method, path: string, body?: Body) => api(TEST_ADMIN_TOKEN, method, path, body);

  /** What the trail must show, oldest first. */
  const expected: Array<{ actor: string; action: string; targetId: string }> = [];
  const secrets = {} as Record<Role, string>;
  const names: Record<Role, string> = { viewer: 'audit-viewer', operator: 'audit-operator', admin: 'audit-admin' };
  let started: number;
  let finished: number;
  let job: Job;
  let kept: Job;
  let cancelled: Execution;

  async function trail(secret = TEST_ADMIN_TOKEN): Promise<AuditEvent[]> {
    const res = await api(secret, 'get', '/audit?limit=100');
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    return (res.body as Schema<'AuditPageResponse'>).items;
  }

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
    started = Date.now();
    for (const role of ROLES) {
      const res = await admin('post', '/tokens', { name: names[role], role });
      expect(res.status).toBe(201);
      secrets[role] = res.body.token as string;
      expected.push({ actor: 'ORBIT_ADMIN_TOKEN', action: 'token.created', targetId: res.body.id as string });
    }
    const step = async <Answer = Job>(
      role: Role,
      action: string,
      method: Method,
      path: string,
      status: number,
      body?: Body,
    ): Promise<Answer> => {
      const res = await api(secrets[role], method, path, body);
      expect({ action, status: res.status }).toEqual({ action, status });
      return res.body as Answer;
    };

    job = await step('admin', 'job.created', 'post', '/jobs', 201, validJob());
    expected.push({ actor: names.admin, action: 'job.created', targetId: job.id });
    await step('admin', 'job.updated', 'patch', `/jobs/${job.id}`, 200, { command: 'echo changed' });
    expected.push({ actor: names.admin, action: 'job.updated', targetId: job.id });
    cancelled = await step<Execution>('operator', 'execution.triggered', 'post', `/jobs/${job.id}/executions`, 201);
    expected.push({ actor: names.operator, action: 'execution.triggered', targetId: cancelled.id });
    await step('operator', 'execution.cancelled', 'post', `/executions/${cancelled.id}/cancel`, 200);
    expected.push({ actor: names.operator, action: 'execution.cancelled', targetId: cancelled.id });
    await step('admin', 'job.deleted', 'delete', `/jobs/${job.id}`, 204);
    expected.push({ actor: names.admin, action: 'job.deleted', targetId: job.id });
    const temp = await step<Schema<'CreatedTokenResponse'>>('admin', 'token.created', 'post', '/tokens', 201, {
      name: 'temporary',
      role: 'viewer',
    });
    expected.push({ actor: names.admin, action: 'token.created', targetId: temp.id });
    await step('admin', 'token.revoked', 'delete', `/tokens/${temp.id}`, 204);
    expected.push({ actor: names.admin, action: 'token.revoked', targetId: temp.id });
    kept = await step('admin', 'job.created', 'post', '/jobs', 201, validJob());
    expected.push({ actor: names.admin, action: 'job.created', targetId: kept.id });
    finished = Date.now();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists every change newest first with the token name, the action, the target id and the time', async () => {
    const items = await trail();

    expect(items.map(({ actor, action, targetId }) => ({ actor, action, targetId }))).toEqual([...expected].reverse());
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['action', 'actor', 'createdAt', 'details', 'id', 'targetId', 'team']);
      expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const at = Date.parse(item.createdAt);
      expect(at).toBeGreaterThanOrEqual(started - 1000);
      expect(at).toBeLessThanOrEqual(finished + 1000);
    }
    const times = items.map((i) => Date.parse(i.createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    // a job's change happened in its team; a token's across the organisation
    for (const item of items.filter((i) => /^(job|token)\./.test(i.action))) {
      const { team } = item as { team?: string | null }; // not yet in the dashboard's generated types
      expect({ action: item.action, team }).toEqual({
        action: item.action,
        team: item.action.startsWith('job.') ? 'default' : null,
      });
    }
  });

  it('holds no secret', async () => {
    const res = await admin('get', '/audit?limit=100');
    for (const secret of [...Object.values(secrets), TEST_ADMIN_TOKEN]) expect(res.text).not.toContain(secret);
  });

  it('failed and refused requests record nothing', async () => {
    const before = await trail();
    const refusals: Array<[string, Role, Method, string, number, Body | undefined]> = [
      ['invalid job', 'admin', 'post', '/jobs', 400, validJob({ cronExpression: 'never' })],
      ['unknown field', 'admin', 'post', '/jobs', 400, validJob({ owner: 'me' })],
      ['duplicate name', 'admin', 'post', '/jobs', 409, validJob({ name: kept.name })],
      ['invalid patch', 'admin', 'patch', `/jobs/${kept.id}`, 400, { maxRetries: -1 }],
      ['patch of a deleted job', 'admin', 'patch', `/jobs/${job.id}`, 404, { command: 'x' }],
      ['delete of a deleted job', 'admin', 'delete', `/jobs/${job.id}`, 404, undefined],
      ['operator creates a job', 'operator', 'post', '/jobs', 403, validJob()],
      ['operator deletes a job', 'operator', 'delete', `/jobs/${kept.id}`, 403, undefined],
      ['viewer triggers', 'viewer', 'post', `/jobs/${kept.id}/executions`, 403, undefined],
      ['trigger of a deleted job', 'operator', 'post', `/jobs/${job.id}/executions`, 404, undefined],
      ['second cancel', 'operator', 'post', `/executions/${cancelled.id}/cancel`, 409, undefined],
      ['viewer cancels', 'viewer', 'post', `/executions/${cancelled.id}/cancel`, 403, undefined],
      ['operator issues a token', 'operator', 'post', '/tokens', 403, { name: 'x', role: 'admin' }],
      ['invalid token role', 'admin', 'post', '/tokens', 400, { name: 'x', role: 'root' }],
      ['revoke of an unknown token', 'admin', 'delete', `/tokens/${UNKNOWN_ID}`, 404, undefined],
    ];
    for (const [name, role, method, path, status, body] of refusals) {
      const res = await api(secrets[role], method, path, body);
      expect({ name, status: res.status }).toEqual({ name, status });
    }
    expect(await trail()).toEqual(before);
    const stored = await t.db.sql(`SELECT count(*)::int AS n FROM audit_events`);
    expect(stored.rows[0].n).toBe(before.length);
  });

  it('reading records nothing', async () => {
    const before = await trail();
    for (const path of ['/jobs', `/jobs/${kept.id}`, '/executions', '/tokens', '/audit']) {
      expect((await admin('get', path)).status).toBe(200);
    }
    expect(await trail()).toEqual(before);
  });

  it.each<Role>(['viewer', 'operator'])('GET /audit as %s → 403', async (role) => {
    const res = await api(secrets[role], 'get', '/audit');
    expectError(res, 403, 'Forbidden');
    expect(res.body.message).toContain('needs the admin role');
  });

  it('GET /audit as an issued admin token → 200', async () => {
    expect(await trail(secrets.admin)).toHaveLength(expected.length);
  });

  it('pages with nextCursor through the whole trail, in order, without repeats', async () => {
    const all = await trail();
    const paged: AuditEvent[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await admin('get', `/audit?limit=3${query}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      paged.push(...(res.body as Schema<'AuditPageResponse'>).items);
      cursor = res.body.nextCursor as string | null;
      pages++;
    } while (cursor !== null && pages < 20);

    expect(all.length).toBe(expected.length);
    expect(pages).toBe(Math.ceil(all.length / 3));
    expect(paged).toEqual(all);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor', 'cursor=', 'verbose=true'])(
    'GET /audit?%s → 400',
    async (query) => {
      expectError(await admin('get', `/audit?${query}`), 400, 'Bad Request');
    },
  );
});

describe('hardening', () => {
  let t: TestApp;
  let job: Job;
  let running: Execution;
  const admin = (method: Method, path: string, body?: Body) => send(t, method, path, bearer(TEST_ADMIN_TOKEN), body);

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
    job = await fixtures(t).job();
    running = await fixtures(t).execution('RUNNING');
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('unknown fields → 400 naming them, and nothing is written', () => {
    it.each<[string, Method, () => string, Body, string[]]>([
      ['POST /jobs', 'post', () => '/jobs', validJob({ owner: 'me', isAdmin: true }), ['owner', 'isAdmin']],
      ['PATCH /jobs/:id', 'patch', () => `/jobs/${job.id}`, { command: 'echo x', urgency: 1 }, ['urgency']],
      ['POST /tokens', 'post', () => '/tokens', { name: 'x', role: 'viewer', secret: 'mine' }, ['secret']],
      [
        'POST /executions/:id/succeed',
        'post',
        () => `/executions/${running.id}/succeed`,
        { exitCode: 0, by: 'me' },
        ['by'],
      ],
      [
        'POST /executions/:id/fail',
        'post',
        () => `/executions/${running.id}/fail`,
        { exitCode: 1, errorMessage: 'x', retry: false },
        ['retry'],
      ],
    ])('%s', async (_, method, path, body, fields) => {
      const before = await snapshot(t.db);
      const res = await admin(method, path(), body);
      expectError(res, 400, 'Bad Request');
      for (const field of fields) expect(res.body.message).toContain(field);
      expect(await snapshot(t.db)).toEqual(before);
    });

    it.each(['__proto__', 'constructor'])('a body key %s is an unknown field like any other', async (key) => {
      const before = await snapshot(t.db);
      const body = JSON.stringify(validJob()).replace(/^\{/, `{"${key}":{"polluted":true},`);
      const res = await admin('post', '/jobs').set('Content-Type', 'application/json').send(body);
      expectError(res, 400, 'Bad Request');
      expect(res.body.message).toContain(key);
      expect(await snapshot(t.db)).toEqual(before);
    });

    it.each<[string, () => Promise<string>]>([
      ['POST /jobs/:id/executions', async () => `/jobs/${(await fixtures(t).job()).id}/executions`],
      ['POST /executions/:id/start', async () => `/executions/${(await fixtures(t).execution('QUEUED')).id}/start`],
      ['POST /executions/:id/cancel', async () => `/executions/${(await fixtures(t).execution('QUEUED')).id}/cancel`],
    ])('%s takes no body: a field in one is unknown too', async (_, path) => {
      const target = await path();
      const before = await snapshot(t.db);
      const res = await admin('post', target, { force: true });
      expectError(res, 400, 'Bad Request');
      expect(res.body.message).toContain('force');
      expect(await snapshot(t.db)).toEqual(before);
    });

    it.each([
      ['/jobs?owner=me', 'owner'],
      ['/executions?sort=asc', 'sort'],
      ['/tokens?role=admin', 'role'],
      ['/audit?who=x', 'who'],
    ])('GET %s → 400 naming %s', async (path, field) => {
      const res = await admin('get', path);
      expectError(res, 400, 'Bad Request');
      expect(res.body.message).toContain(field);
    });
  });

  it('a 70 KiB JSON body → 413 as {statusCode, message, error}, and nothing is written', async () => {
    const before = await snapshot(t.db);
    const res = await admin('post', '/jobs', validJob({ command: 'x'.repeat(70 * 1024) }));
    expectError(res, 413, 'Payload Too Large');
    expect(await snapshot(t.db)).toEqual(before);
  });

  it('a body just under 64 KiB is read (and refused by the rules, not for its size)', async () => {
    const res = await admin('post', '/jobs', validJob({ command: 'x'.repeat(60 * 1024) }));
    expectError(res, 400, 'Bad Request');
    expect(res.body.message).toContain('command');
  });

  it.each<[string, string | undefined]>([
    ['a successful answer', bearer(TEST_ADMIN_TOKEN)],
    ['a 401', undefined],
  ])('security headers are on %s', async (_, authorization) => {
    const res = await send(t, 'get', '/jobs', authorization);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-frame-options']).toEqual(expect.any(String));
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toEqual(expect.stringContaining('max-age='));
  });

  it('security headers are also on an unknown route, whose 404 has the usual shape', async () => {
    const res = await admin('get', '/no-such-route');
    expectError(res, 404, 'Not Found');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers carry no ETag: JSON answers are not hashed for conditional requests', async () => {
    const res = await admin('get', '/jobs');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
  });

  it('CORS is off by default: no access-control-allow-origin, also not on a preflight', async () => {
    const res = await admin('get', '/jobs').set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();

    const preflight = await request(t.app.getHttpServer())
      .options('/jobs')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('/docs and /docs-json answer without a token, and the document declares a bearer scheme used by every operation', async () => {
    const docs = await request(t.app.getHttpServer()).get('/docs').redirects(1);
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/swagger-ui/i);

    const res = await request(t.app.getHttpServer()).get('/docs-json');
    expect(res.status).toBe(200);
    const schemes = res.body.components.securitySchemes as Record<string, Body>;
    const bearerSchemes = Object.entries(schemes).filter(([, s]) => s.type === 'http' && s.scheme === 'bearer');
    expect(bearerSchemes).toHaveLength(1);
    const [name] = bearerSchemes[0]!;
    for (const [path, ops] of Object.entries(res.body.paths as Record<string, Record<string, Body>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (PUBLIC_ROUTES.includes(`${method.toUpperCase()} ${path}`)) continue;
        expect({ operation: `${method} ${path}`, security: op.security as unknown }).toEqual({
          operation: `${method} ${path}`,
          security: expect.arrayContaining([{ [name]: [] }]),
        });
      }
    }
  });
});

describe('rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false, env: { ORBIT_RATE_LIMIT_PER_MINUTE: '5' } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('the 6th request of one token in a minute is 429, while another token still gets 200', async () => {
    // The window is the calendar minute: start well inside one so it cannot turn mid-test.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));

    const issued = await send(t, 'post', '/tokens', bearer(TEST_ADMIN_TOKEN), { name: 'other', role: 'viewer' });
    expect(issued.status).toBe(201);
    for (let i = 2; i <= 5; i++) {
      const res = await send(t, 'get', '/jobs', bearer(TEST_ADMIN_TOKEN));
      expect({ request: i, status: res.status }).toEqual({ request: i, status: 200 });
    }

    const sixth = await send(t, 'get', '/jobs', bearer(TEST_ADMIN_TOKEN));
    expectError(sixth, 429, 'Too Many Requests');
    const seventh = await send(t, 'post', '/jobs', bearer(TEST_ADMIN_TOKEN), validJob());
    expectError(seventh, 429, 'Too Many Requests');
    expect((await t.db.sql('SELECT count(*)::int AS n FROM jobs')).rows[0].n).toBe(0);

    const other = await send(t, 'get', '/jobs', bearer(issued.body.token as string));
    expect(other.status).toBe(200);
  });
});

describe('rate limit keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false, env: { ORBIT_RATE_LIMIT_PER_MINUTE: '3' } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a token counts as one however its scheme is spelled; requests without a bearer token count by address', async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));

    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect((await send(t, 'get', '/jobs', `${scheme} ${TEST_ADMIN_TOKEN}`)).status).toBe(200);
    }
    expectError(await send(t, 'get', '/jobs', `bearer ${TEST_ADMIN_TOKEN}`), 429, 'Too Many Requests');

    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer']) {
      expectError(await send(t, 'get', '/jobs', authorization), 401, 'Unauthorized');
    }
    expectError(await send(t, 'get', '/jobs'), 429, 'Too Many Requests');
  });
});

describe('CORS for configured origins', () => {
  let t: TestApp;
  const allowed = 'https://app.example';

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false, env: { ORBIT_CORS_ORIGINS: `${allowed}, https://other.example` } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('an allowed origin gets access-control-allow-origin, on requests and on preflights', async () => {
    const res = await send(t, 'get', '/jobs', bearer(TEST_ADMIN_TOKEN)).set('Origin', allowed);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(allowed);

    const preflight = await request(t.app.getHttpServer())
      .options('/jobs')
      .set('Origin', allowed)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type');
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers['access-control-allow-origin']).toBe(allowed);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
  });

  it('another origin still gets none', async () => {
    const res = await send(t, 'get', '/jobs', bearer(TEST_ADMIN_TOKEN)).set('Origin', 'https://evil.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
