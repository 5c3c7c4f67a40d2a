import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { errorBodyProblem } from '../support/error-body.js';

/**
 * Untyped on purpose, unlike the OpenAPI types the other tests use: these bodies are hostile (wrong
 * types, unknown fields, injections), and so are the answers they must not break.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Body = Record<string, any>;
type Method = 'get' | 'post' | 'patch' | 'delete';
/** Which real id an endpoint gets when the id arbitrary asks for a real one. */
type RealId = 'job' | 'fresh-job' | 'queued' | 'running' | 'token';

interface Endpoint {
  method: Method;
  path: string;
  real?: RealId;
  /** A valid body, for the endpoints that read one. */
  base?: () => Body;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: '/jobs',
    base: () => ({ name: `job-${randomUUID()}`, command: 'true', cronExpression: '0 3 * * *' }),
  },
  { method: 'get', path: '/jobs' },
  { method: 'get', path: '/jobs/{id}', real: 'job' },
  { method: 'patch', path: '/jobs/{id}', real: 'job', base: () => ({ command: 'echo patched' }) },
  { method: 'delete', path: '/jobs/{id}', real: 'fresh-job' },
  { method: 'get', path: '/jobs/{id}/next-runs', real: 'job' },
  { method: 'post', path: '/jobs/{id}/executions', real: 'job' },
  { method: 'get', path: '/executions' },
  { method: 'get', path: '/executions/{id}', real: 'queued' },
  { method: 'get', path: '/executions/{id}/output', real: 'queued' },
  { method: 'post', path: '/executions/{id}/start', real: 'queued' },
  { method: 'post', path: '/executions/{id}/succeed', real: 'running', base: () => ({ exitCode: 0 }) },
  {
    method: 'post',
    path: '/executions/{id}/fail',
    real: 'running',
    base: () => ({ exitCode: 1, errorMessage: 'boom' }),
  },
  { method: 'post', path: '/executions/{id}/cancel', real: 'queued' },
  { method: 'post', path: '/tokens', base: () => ({ name: `token-${randomUUID()}`, role: 'viewer' }) },
  { method: 'get', path: '/tokens' },
  { method: 'delete', path: '/tokens/{id}', real: 'token' },
  { method: 'get', path: '/audit' },
];
const WITH_BODY = ENDPOINTS.filter((e) => e.base);

/** Every field any body of the API knows, and keys no body should. */
const FIELDS = [
  'name',
  'command',
  'cronExpression',
  'timezone',
  'maxRetries',
  'timeoutSeconds',
  'enabled',
  'misfirePolicy',
  'concurrencyPolicy',
  'exitCode',
  'errorMessage',
  'role',
  'id',
  'status',
  'createdAt',
  '__proto__',
  'constructor',
  'prototype',
  '',
];

/** Injection-looking text; none of it names a table, so an echo of it is not mistaken for leaked SQL. */
const SQL_LIKE = [
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE jobs; --",
  '" OR ""="',
  '1 UNION ALL SELECT NULL, version() --',
  `${'00000000-0000-4000-8000-000000000000'}' OR 'x'='x`,
  '1); SELECT pg_sleep(5); --',
  '$1',
  '\\',
  "'",
];
const TRAVERSAL = [
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '....//....//etc/passwd',
  '/etc/shadow',
  '~root',
  '.',
];
const WEIRD_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'NaN',
  'a\u0000b',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u2066',
  '\ufeff',
  '😀'.repeat(50),
  'é'.repeat(5000),
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '%00',
  '%',
  '\r\nX-Injected: 1',
];
const HOSTILE_STRINGS = [...SQL_LIKE, ...TRAVERSAL, ...WEIRD_STRINGS];
/**
 * For ids and query strings: short enough that the request line stays under Node's 16 KiB header
 * limit (beyond it Node itself answers 431 before the app sees the request).
 */
const SHORT_HOSTILE_STRINGS = HOSTILE_STRINGS.filter((s) => s.length <= 100);

/** Number texts JSON can carry but JavaScript numbers cannot all hold. */
const NUMBER_TEXTS = [
  '0',
  '-0',
  '1.5',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '1e21',
  '1e308',
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
];

const json = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** A JSON text for one value: anything, a hostile string, a huge one, a number out of range, a wrong type. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.anything({ maxDepth: 3 }).map(json),
  fc.constantFrom(...HOSTILE_STRINGS).map(json),
  fc.string({ unit: 'binary', maxLength: 30 }).map(json),
  fc.nat({ max: 80 * 1024 }).map((n) => json('x'.repeat(n))),
  fc.constantFrom(...NUMBER_TEXTS),
  fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)).map(json),
  fc.constantFrom('[]', '{}', '[0]', '["viewer"]', '{"$ne":null}', '{"__proto__":{"polluted":"yes"}}'),
);

/** An object text with `key` set to `value` over `base` (keys written as text, so `__proto__` stays a key). */
function objectText(base: Body, key: string, value: string): string {
  const entries = Object.entries(base)
    .filter(([k]) => k !== key)
    .map(([k, v]) => `${json(k)}:${json(v)}`);
  return `{${[...entries, `${json(key)}:${value}`].join(',')}}`;
}

/** Whole bodies that are no object at all, or no JSON at all. */
const RAW_BODIES = [
  '[]',
  '[{}]',
  '"a string"',
  '42',
  'null',
  'true',
  '1e400',
  '{',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '\u0000',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__":{"role":"admin"},"name":"x","role":"viewer"}',
];

interface BodySpec {
  contentType?: string;
  /** Built when the request is made: some bodies are a valid one with one field changed. */
  text(endpoint: Endpoint): string;
}

const bodySpec: fc.Arbitrary<BodySpec | null> = fc.oneof(
  fc.constant(null),
  fc.anything({ maxDepth: 5 }).map((v): BodySpec => ({ contentType: 'application/json', text: () => json(v) })),
  fc
    .tuple(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })), valueText)
    .map(([key, value]): BodySpec => ({
      contentType: 'application/json',
      text: (e) => objectText(e.base?.() ?? {}, key, value),
    })),
  fc.array(valueText, { maxLength: 4 }).map((items): BodySpec => ({
    contentType: 'application/json',
    text: () => `[${items.join(',')}]`,
  })),
  fc.constantFrom(...RAW_BODIES).map((raw): BodySpec => ({ contentType: 'application/json', text: () => raw })),
  fc
    .tuple(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml'), fc.string())
    .map(([contentType, raw]): BodySpec => ({ contentType, text: () => raw })),
  fc.constant<BodySpec>({
    contentType: 'application/x-www-form-urlencoded',
    text: () => '__proto__[polluted]=yes&a=1',
  }),
);

/** A cursor is base64url of `iso|id`: well-formed ones with odd contents reach the database. */
const cursorOf = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const CURSORS = [
  cursorOf('1970-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000'),
  cursorOf('9999-12-31T23:59:59.999Z|ffffffff-ffff-ffff-ffff-ffffffffffff'),
  cursorOf('2026-02-30T00:00:00.000Z|00000000-0000-0000-0000-000000000000'),
  cursorOf('Tue Mar 01 2026|00000000-0000-4000-8000-000000000000'),
  cursorOf("2026-01-01T00:00:00.000Z|' OR '1'='1"),
  cursorOf('+275760-09-13T00:00:00.000Z|00000000-0000-4000-8000-000000000000'),
  cursorOf('2026-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000|x'),
  cursorOf('|'),
  'not base64 !',
];

const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...SHORT_HOSTILE_STRINGS, ...NUMBER_TEXTS, ...CURSORS),
  fc.constantFrom('true', 'false', 'TRUE', '1', 'QUEUED', 'queued', 'RUNNING', 'SUCCEEDED', '100', '101', 'Infinity'),
  fc.constantFrom(
    'job.created,token.revoked',
    'job.',
    '2026-12-01',
    '2026-12-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '0',
  ),
  fc.uuid().map(String),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.nat({ max: 2_500 }).map((n) => 'x'.repeat(n)),
);
const queryKey: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ...['limit', 'cursor', 'status', 'jobId', 'retryOf', 'enabled', 'count'],
      // GET /audit's filters
      ...['action', 'actor', 'targetId', 'from', 'to'],
    ),
    weight: 4,
  },
  fc.constantFrom('limit[]', 'cursor[$ne]', '__proto__', '__proto__[polluted]', 'constructor[prototype][polluted]', ''),
  fc.string({ maxLength: 8 }),
);
const queryArb: fc.Arbitrary<string> = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&'));

/** Path segments sent as they are (not percent-encoded again). */
const RAW_IDS = ['%', '%E0%A4%A', '%00', '..%2f..%2fetc%2fpasswd', '%2e%2e', '..', '%252e', '%C0%AE%C0%AE', 'a%2Fb'];

type IdSpec = { kind: 'real' } | { kind: 'text'; value: string } | { kind: 'raw'; value: string };
const idArb: fc.Arbitrary<IdSpec> = fc.oneof(
  { arbitrary: fc.constant<IdSpec>({ kind: 'real' }), weight: 3 },
  fc.uuid().map((value): IdSpec => ({ kind: 'text', value })),
  fc.string({ maxLength: 40 }).map((value): IdSpec => ({ kind: 'text', value })),
  fc.string({ unit: 'binary', maxLength: 40 }).map((value): IdSpec => ({ kind: 'text', value })),
  fc.constantFrom(...SHORT_HOSTILE_STRINGS).map((value): IdSpec => ({ kind: 'text', value })),
  fc.constantFrom(...RAW_IDS).map((value): IdSpec => ({ kind: 'raw', value })),
);

/** Percent-encodes every byte but the unreserved ones (lone surrogates become U+FFFD, as UTF-8 would). */
function pct(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** What an error body must never show: stack frames, source paths, SQL or driver messages, connection strings. */
const LEAKS: RegExp[] = [
  /\n\s*at /,
  /\bat \S+ \([^)]*:\d+:\d+\)/,
  /node_modules/,
  /\.(ts|js|cjs|mjs):\d+/,
  /file:\/\//,
  /QueryFailedError|TypeORMError|DriverError|EntityPropertyNotFound/,
  /syntax error at or near/i,
  /invalid input syntax for/i,
  /violates [\w -]*constraint/i,
  /duplicate key value/i,
  /relation "[^"]*"/i,
  /\bSELECT\b[^]*\bFROM\b/i,
  /\bINSERT INTO\b/i,
  /\bUPDATE\b[^]*\bSET\b/i,
  /\bDELETE FROM\b/i,
  /\bRETURNING\b/i,
  /api_tokens|audit_events|execution_outputs|token_hash/i,
  /postgres(ql)?:\/\//i,
];

describe('hostile input never breaks the API', () => {
  let t: TestApp;
  let job: Body;
  let fingerprintSql: string;
  const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  const admin = (method: Method, path: string) =>
    request(t.app.getHttpServer())[method](path).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);

  async function ok(method: Method, path: string, status: number, body?: Body): Promise<Body> {
    const res = await admin(method, path).send(body);
    expect({ path, status: res.status }).toEqual({ path, status });
    return res.body as Body;
  }

  const newJob = () =>
    ok('post', '/jobs', 201, { name: `job-${randomUUID()}`, command: 'true', cronExpression: '0 3 * * *' });

  async function realId(kind: RealId): Promise<string> {
    switch (kind) {
      case 'job':
        return job.id as string;
      case 'fresh-job':
        return (await newJob()).id as string;
      case 'queued':
        return (await ok('post', `/jobs/${job.id}/executions`, 201)).id as string;
      case 'running': {
        const queued = await ok('post', `/jobs/${job.id}/executions`, 201);
        return (await ok('post', `/executions/${queued.id}/start`, 200)).id as string;
      }
      case 'token':
        return (await ok('post', '/tokens', 201, { name: `t-${randomUUID()}`, role: 'viewer' })).id as string;
    }
  }

  /** Row count and content hash of every table: a rejected request must leave all of them as they were. */
  async function fingerprint(): Promise<Record<string, string>> {
    return (await t.db.sql(fingerprintSql)).rows[0] as Record<string, string>;
  }

  /** Sends one request and checks the answer; throws with the request in the message when a rule is broken. */
  async function probe(endpoint: Endpoint, id: IdSpec, body: BodySpec | null, query: string): Promise<void> {
    let segment = '';
    if (endpoint.path.includes('{id}')) {
      if (id.kind === 'real') segment = await realId(endpoint.real ?? 'job');
      else segment = id.kind === 'raw' ? id.value : pct(id.value);
    }
    const path = endpoint.path.replace('{id}', segment) + (query ? `?${query}` : '');
    const text = body?.text(endpoint);
    const described = `${endpoint.method.toUpperCase()} ${path.slice(0, 300)} ${body?.contentType ?? ''} ${(text ?? '').slice(0, 300)}`;

    const before = await fingerprint();
    let req = admin(endpoint.method, path);
    if (body && text !== undefined) {
      if (body.contentType) req = req.set('Content-Type', body.contentType);
      req = req.send(text);
    }
    const res = await req;

    const problem = (what: string): Error =>
      new Error(`${described}\n→ ${res.status} ${res.text.slice(0, 500)}\n${what}`);
    if (Object.getOwnPropertyNames(Object.prototype).sort().join() !== prototypeKeys.join()) {
      throw problem('Object.prototype was polluted');
    }
    if (res.status >= 200 && res.status < 300) return;
    if (res.status < 400 || res.status >= 500) throw problem('the answer must be 2xx or 4xx');
    const shape = errorBodyProblem(res.body, res.status);
    if (shape) throw problem(`a 4xx body must be {statusCode, message, error} (with field or errors if any): ${shape}`);
    const leak = [...LEAKS, new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))].find((re) =>
      re.test(res.text),
    );
    if (leak) throw problem(`the error body shows internals (${leak})`);
    const after = await fingerprint();
    const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
    if (changed.length > 0) throw problem(`a rejected request wrote to ${changed.join(', ')}`);
  }

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
    const tables = (
      await t.db.sql(
        `SELECT table_name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'migrations' ORDER BY 1`,
      )
    ).rows.map((r: { table_name: string }) => r.table_name);
    expect(tables).toEqual(expect.arrayContaining(['jobs', 'executions', 'api_tokens', 'audit_events']));
    fingerprintSql = `SELECT ${tables
      .map(
        (table) =>
          `(SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM "${table}" x) AS "${table}"`,
      )
      .join(', ')}`;
    job = await newJob();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('a plainly invalid body answers a clean 400 that passes every check of the probe', async () => {
    const res = await admin('post', '/jobs').send({ name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: 'command is required; cronExpression is required',
      error: 'Bad Request',
      errors: [
        { field: 'command', message: 'command is required' },
        { field: 'cronExpression', message: 'cronExpression is required' },
      ],
    });
    await expect(
      probe(ENDPOINTS[0]!, { kind: 'real' }, { contentType: 'application/json', text: () => '{"name":"x"}' }, ''),
    ).resolves.toBeUndefined();
  });

  it('random ids, bodies and query strings to every endpoint: 2xx or a clean 4xx that wrote nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), idArb, bodySpec, queryArb, async (endpoint, id, body, query) => {
        await probe(endpoint, id, body, query);
      }),
      { numRuns: 250, endOnFailure: true },
    );
  }, 60_000);

  it('a valid body with one field made hostile, on a real id: 2xx or a clean 4xx that wrote nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WITH_BODY),
        fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })),
        valueText,
        async (endpoint, key, value) => {
          await probe(
            endpoint,
            { kind: 'real' },
            { contentType: 'application/json', text: (e) => objectText(e.base?.() ?? {}, key, value) },
            '',
          );
        },
      ),
      { numRuns: 150, endOnFailure: true },
    );
  }, 60_000);

  it('deeply nested bodies (still under 64 KiB): 2xx or a clean 4xx, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WITH_BODY),
        fc.integer({ min: 1, max: 30_000 }),
        fc.constantFrom<[string, string]>(['[', ']'], ['{"a":', '}']),
        fc.constantFrom(...FIELDS.slice(0, 12), 'unknown'),
        async (endpoint, depth, [open, close], field) => {
          const levels = Math.min(depth, Math.floor(60_000 / (open.length + close.length)));
          const nested = `${open.repeat(levels)}${open === '[' ? '' : '1'}${close.repeat(levels)}`;
          await probe(
            endpoint,
            { kind: 'real' },
            { contentType: 'application/json', text: (e) => objectText(e.base?.() ?? {}, field, nested) },
            '',
          );
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  }, 60_000);

  it('prototype-pollution keys in bodies and queries pollute nothing', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const raw of RAW_BODIES.filter((b) => b.includes('__proto__') || b.includes('constructor'))) {
        await probe(endpoint, { kind: 'real' }, { contentType: 'application/json', text: () => raw }, '');
      }
      await probe(endpoint, { kind: 'real' }, null, '__proto__[polluted]=yes&constructor[prototype][polluted]=yes');
    }
    const escalation = await admin('post', '/tokens')
      .set('Content-Type', 'application/json')
      .send('{"__proto__":{"role":"admin"},"name":"proto-escalation","role":"viewer"}');
    if (escalation.status === 201) expect(escalation.body.role).toBe('viewer');
    else expect(escalation.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  });
});

describe("a command's environment holds no secret of the server", () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-hostile-env-${process.pid}`);
  const planted: Record<string, string> = {
    DATABASE_URL: 'postgres://orbit:planted-db-password-7f3a@db.internal:5432/orbit',
    ORBIT_ADMIN_TOKEN: 'planted-admin-token-5b1e9c0d2a7f4e8b',
    ORBIT_TEST_ADMIN_URL_COPY: 'planted-admin-url-c41d',
    PGPASSWORD: 'planted-pg-password-91aa',
    AWS_SECRET_ACCESS_KEY: 'planted-aws-secret-0d2c',
  };
  const saved: Record<string, string | undefined> = {};
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    for (const [name, value] of Object.entries(planted)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    t = await createTestApp({
      role: 'all',
      asAdmin: false,
      env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '100', ORBIT_KILL_GRACE_SECONDS: '1' },
    });
  });

  afterAll(async () => {
    await t?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(workDir, { recursive: true, force: true });
  });

  it('`env` shows the execution variables but no secret of the server process or of the caller', async () => {
    const admin = `Bearer ${TEST_ADMIN_TOKEN}`;
    const operator = await http()
      .post('/tokens')
      .set('Authorization', admin)
      .send({ name: 'env-operator', role: 'operator' });
    expect(operator.status).toBe(201);
    const created = await http()
      .post('/jobs')
      .set('Authorization', admin)
      .send({ name: 'print-env', command: 'env', cronExpression: '0 0 1 1 *' });
    expect(created.status).toBe(201);
    const queued = await http()
      .post(`/jobs/${created.body.id}/executions`)
      .set('Authorization', `Bearer ${operator.body.token}`);
    expect(queued.status).toBe(201);

    const done = await waitFor(async () => {
      const { body } = await http().get(`/executions/${queued.body.id}`).set('Authorization', admin);
      return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(body.status as string) ? (body as Body) : undefined;
    }, 'the env command to finish');
    expect(done.status).toBe('SUCCEEDED');
    const output = await http().get(`/executions/${queued.body.id}/output`).set('Authorization', admin);
    expect(output.status).toBe(200);
    const stdout = output.body.stdout as string;

    expect(stdout).toContain(`ORBIT_EXECUTION_ID=${queued.body.id}`);
    const names = stdout.split('\n').map((line) => line.split('=')[0]);
    for (const [name, value] of Object.entries(planted)) {
      expect({ name, inOutput: stdout.includes(value) }).toEqual({ name, inOutput: false });
      expect(names).not.toContain(name);
    }
    for (const secret of [
      t.db.url,
      TEST_ADMIN_TOKEN,
      operator.body.token as string,
      process.env.ORBIT_TEST_ADMIN_URL,
    ]) {
      if (secret) expect(stdout).not.toContain(secret);
    }
    expect(names).not.toContain('ORBIT_TEST_ADMIN_URL');
  });
});
