import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import request from 'supertest';
import { TokensService } from '../../src/auth/application/tokens.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

/** 55 s before the minute turns: the windows are calendar minutes of the app's clock. */
const T0 = '2026-11-30T10:00:05.000Z';

const randomToken = () => `orbit_${randomBytes(32).toString('base64url')}`;

function get(t: TestApp, path: string, token?: string, forwardedFor?: string) {
  let req = request(t.app.getHttpServer()).get(path);
  if (token !== undefined) req = req.set('Authorization', `Bearer ${token}`);
  if (forwardedFor !== undefined) req = req.set('X-Forwarded-For', forwardedFor);
  return req;
}

function signInRefusal(client: string, limit: number, seconds: number) {
  return {
    status: 429,
    retryAfter: String(seconds),
    body: {
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Too many failed sign-ins from ${client} (at most ${limit} a minute): try again in ${seconds} s`,
    },
  };
}

const answer = (res: request.Response) => ({
  status: res.status,
  retryAfter: res.headers['retry-after'],
  body: res.body,
});

describe('failed sign-ins per client address', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ clock, asAdmin: false, env: { ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '3' } });
  });
  afterAll(() => t.close());

  it('after 3 unknown tokens, a token this node has not accepted is a 429 before any lookup, an accepted one still works, and the next minute counts anew', async () => {
    expect((await get(t, '/jobs', TEST_ADMIN_TOKEN)).status).toBe(200);
    const issued = await request(t.app.getHttpServer())
      .post('/tokens')
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ name: 'fresh', role: 'viewer' })
      .expect(201);
    const fresh = issued.body.token as string;
    const lookups = jest.spyOn(t.app.get(TokensService), 'authenticate');

    for (let i = 1; i <= 3; i++) {
      const res = await get(t, '/jobs', randomToken());
      expect({ attempt: i, status: res.status, message: res.body.message }).toEqual({
        attempt: i,
        status: 401,
        message: 'Unknown or revoked token',
      });
    }
    expect(lookups).toHaveBeenCalledTimes(3);

    expect(answer(await get(t, '/jobs', randomToken()))).toEqual(signInRefusal('127.0.0.1', 3, 55));
    expect(lookups).toHaveBeenCalledTimes(3);
    // a real token that this node has not seen yet waits too: telling it from a guess takes the lookup
    expect(answer(await get(t, '/jobs', fresh))).toEqual(signInRefusal('127.0.0.1', 3, 55));
    // no token is no guess: it is refused as before, without a lookup
    expect((await get(t, '/jobs')).status).toBe(401);

    expect((await get(t, '/jobs', TEST_ADMIN_TOKEN)).status).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(4);

    clock.advance(55_000);
    expect((await get(t, '/jobs', randomToken())).status).toBe(401);
    expect((await get(t, '/jobs', fresh)).status).toBe(200);
    lookups.mockRestore();
  });
});

describe('health is never rate-limited', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      clock,
      asAdmin: false,
      env: { ORBIT_RATE_LIMIT_PER_MINUTE: '3', ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '2' },
    });
  });
  afterAll(() => t.close());

  it('/health/live and /health/ready answer 200 from an address over both limits, with a token or without', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(t, '/jobs', randomToken())).status);
    for (let i = 0; i < 4; i++) statuses.push((await get(t, '/jobs')).status);
    expect(statuses).toEqual([401, 401, 429, 429, 401, 401, 401, 429]);

    for (let i = 0; i < 20; i++) {
      for (const path of ['/health/live', '/health/ready']) {
        expect({ path, status: (await get(t, path)).status }).toEqual({ path, status: 200 });
      }
    }
    expect((await get(t, '/health/live', randomToken())).status).toBe(200);
  });
});

describe('the client address behind proxies', () => {
  const clock = new FakeClock(new Date(T0));

  describe('from a trusted proxy', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        clock,
        asAdmin: false,
        env: { ORBIT_TRUSTED_PROXIES: '127.0.0.1, ::1', ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '2' },
      });
    });
    afterAll(() => t.close());

    it('X-Forwarded-For names the client: each counts on its own, and what a client prepends does not help it', async () => {
      for (let i = 0; i < 2; i++) expect((await get(t, '/jobs', randomToken(), '203.0.113.7')).status).toBe(401);

      expect(answer(await get(t, '/jobs', randomToken(), '203.0.113.7'))).toEqual(signInRefusal('203.0.113.7', 2, 55));
      expect(answer(await get(t, '/jobs', randomToken(), '198.51.100.9, 203.0.113.7'))).toEqual(
        signInRefusal('203.0.113.7', 2, 55),
      );
      expect((await get(t, '/jobs', randomToken(), '203.0.113.8')).status).toBe(401);
      expect((await get(t, '/jobs', randomToken())).status).toBe(401); // the proxy itself
    });

    it('an IPv6 client counts by its /64', async () => {
      for (const client of ['2001:db8:1:2::a', '2001:db8:1:2:ffff::b']) {
        expect((await get(t, '/jobs', randomToken(), client)).status).toBe(401);
      }
      expect(answer(await get(t, '/jobs', randomToken(), '2001:db8:1:2::c'))).toEqual(
        signInRefusal('2001:db8:1:2::/64', 2, 55),
      );
      expect((await get(t, '/jobs', randomToken(), '2001:db8:1:3::a')).status).toBe(401);
    });
  });

  describe('from anywhere else', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        clock,
        asAdmin: false,
        env: { ORBIT_TRUSTED_PROXIES: '10.0.0.0/8', ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '2' },
      });
    });
    afterAll(() => t.close());

    it('X-Forwarded-For is ignored: the socket address counts', async () => {
      expect((await get(t, '/jobs', randomToken(), '203.0.113.7')).status).toBe(401);
      expect((await get(t, '/jobs', randomToken(), '203.0.113.8')).status).toBe(401);
      expect(answer(await get(t, '/jobs', randomToken(), '203.0.113.9'))).toEqual(signInRefusal('127.0.0.1', 2, 55));
    });
  });
});

describe('the orbit-file schema', () => {
  const clock = new FakeClock(new Date(T0));
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ clock, asAdmin: false, env: { ORBIT_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(() => t.close());

  it('is served without a token, within the rate limit of the address', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get(t, '/schemas/orbit-file.json');
      expect(res.status).toBe(200);
      expect(res.body.title).toBe('Orbit file (orbit.yaml)');
    }
    expect(answer(await get(t, '/schemas/orbit-file.json'))).toEqual({
      status: 429,
      retryAfter: '55',
      body: { statusCode: 429, error: 'Too Many Requests', message: 'Too many requests: at most 3 a minute per token' },
    });
    expect((await get(t, '/jobs')).status).toBe(429); // one count per address, whatever the route

    clock.advance(55_000);
    expect((await get(t, '/schemas/orbit-file.json')).status).toBe(200);
  });
});
