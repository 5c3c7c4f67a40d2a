import { createHash } from 'node:crypto';
import request from 'supertest';
import { FakeClock } from '../support/fake-clock.js';
import { jobBody } from '../support/jobs.js';
import { IdTokenTamper, issuerEnv, startTestIssuer, TestIssuer, throughIssuer } from '../support/oidc-issuer.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

const ORBIT = 'http://orbit.test';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const PEOPLE = [
  { login: 'ada', name: 'Ada Lovelace', email: 'ada@example.com', groups: ['orbit-admins'] },
  { login: 'bob', name: 'Bob Payne', email: 'bob@example.com', groups: ['payments', 'everyone'] },
  { login: 'cyd', name: 'Cyd Nobody', email: 'cyd@example.com', groups: [] },
];

/** What the callback answered, and the session cookie it set (if any). */
interface Callback {
  status: number;
  location: string | undefined;
  text: string;
  contentType: string;
  session: string | undefined;
  setCookies: string[];
}

const cookieValue = (setCookies: string[], name: string): string | undefined => {
  const line = setCookies.find((cookie) => cookie.startsWith(`${name}=`));
  const value = line?.slice(name.length + 1).split(';')[0];
  return value || undefined;
};

describe('sign-in through an OIDC issuer', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    issuer = await startTestIssuer([ORBIT], PEOPLE);
    t = await createTestApp({
      asAdmin: false,
      clock,
      env: issuerEnv(issuer, ORBIT),
    });
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  beforeEach(() => {
    issuer.tamper = null;
    clock.set(new Date());
  });

  const http = () => request(t.app.getHttpServer());

  /** GET /auth/login: the issuer's URL, and the state cookie the browser keeps. */
  async function startSignIn(): Promise<{ authorizationUrl: string; stateCookie: string }> {
    const res = await http().get('/auth/login');
    expect(res.status).toBe(302);
    const setCookies = res.headers['set-cookie'] as unknown as string[];
    return { authorizationUrl: res.headers.location as string, stateCookie: cookieValue(setCookies, 'orbit_sign_in')! };
  }

  async function callback(url: string, stateCookie: string | undefined): Promise<Callback> {
    const { pathname, search } = new URL(url);
    let req = http().get(`${pathname}${search}`);
    if (stateCookie !== undefined) req = req.set('Cookie', `orbit_sign_in=${stateCookie}`);
    const res = await req;
    const setCookies = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
    return {
      status: res.status,
      location: res.headers.location,
      text: res.text,
      contentType: String(res.headers['content-type']),
      session: cookieValue(setCookies, 'orbit_session'),
      setCookies,
    };
  }

  /** The whole sign-in, as a browser does it: the session cookie. */
  async function signIn(login: string): Promise<string> {
    const { authorizationUrl, stateCookie } = await startSignIn();
    const answer = await callback(await throughIssuer(authorizationUrl, login), stateCookie);
    expect({ status: answer.status, location: answer.location }).toEqual({ status: 302, location: `${ORBIT}/ui/` });
    return answer.session!;
  }

  const asPerson = (session: string) => ({ Cookie: `orbit_session=${session}`, Origin: ORBIT });
  const sessions = async () => Number((await t.db.sql(`SELECT count(*) AS n FROM sessions`)).rows[0].n);

  it('GET /auth/providers names the issuer, without a token', async () => {
    const res = await http().get('/auth/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ oidc: { name: 'Test SSO', loginUrl: '/auth/login', deviceGrant: false }, token: true });
  });

  it('GET /auth/login sends the browser to the issuer with PKCE (S256), state and nonce', async () => {
    const res = await http().get('/auth/login');
    expect(res.status).toBe(302);
    const url = new URL(res.headers.location as string);
    expect(url.origin).toBe(issuer.url);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: issuer.clientId,
      redirect_uri: `${ORBIT}/auth/callback`,
      response_type: 'code',
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.stringMatching(/^[\w-]{20,}$/),
      nonce: expect.stringMatching(/^[\w-]{20,}$/),
    });
    const stateCookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
    expect(stateCookie).toContain(`orbit_sign_in=${url.searchParams.get('state')}`);
    expect(stateCookie).toMatch(/HttpOnly/);
    expect(stateCookie).toMatch(/SameSite=Lax/);
    expect(stateCookie).toMatch(/Path=\/auth\/callback/);
  });

  it('signs a person in: a session cookie (HttpOnly, SameSite=Lax; not Secure over http), and /auth/me says who', async () => {
    const { authorizationUrl, stateCookie } = await startSignIn();
    const answer = await callback(await throughIssuer(authorizationUrl, 'ada'), stateCookie);

    expect(answer.status).toBe(302);
    expect(answer.location).toBe(`${ORBIT}/ui/`);
    const cookie = answer.setCookies.find((line) => line.startsWith('orbit_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Max-Age=43200/);
    expect(cookie).not.toMatch(/Secure/);
    const me = await http().get('/auth/me').set(asPerson(answer.session!));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      kind: 'user',
      tokenId: null,
      userId: expect.any(String),
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      role: 'admin',
      admin: true,
      teams: [],
    });
  });

  it('a person with no grant is signed in but may do nothing; a grant to their group gives them its role', async () => {
    const session = await signIn('bob');
    const me = await http().get('/auth/me').set(asPerson(session));
    expect(me.body).toMatchObject({ name: 'Bob Payne', role: null, admin: false, teams: [] });
    const refused = await http().get('/jobs').set(asPerson(session));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('Bob Payne has no role here yet');

    const granted = await http()
      .put('/teams/default/grants')
      .set('Authorization', ADMIN)
      .send({ grants: [{ kind: 'group', subject: 'payments', role: 'operator' }] });
    expect(granted.status).toBe(200);

    expect((await http().get('/jobs').set(asPerson(session))).status).toBe(200);
    expect((await http().get('/auth/me').set(asPerson(session))).body).toMatchObject({
      role: 'operator',
      teams: [{ name: 'default', role: 'operator' }],
    });
    const create = await http().post('/jobs').set(asPerson(session)).send(jobBody());
    expect(create.status).toBe(403);
    expect(create.body.message).toBe('This needs the admin role; Bob Payne has operator');
    await http().put('/teams/default/grants').set('Authorization', ADMIN).send({ grants: [] });
  });

  it('the audit trail names the person behind a change made through a session', async () => {
    const session = await signIn('ada');
    const created = await http()
      .post('/jobs')
      .set(asPerson(session))
      .send(jobBody({ name: 'made-by-ada' }));
    expect(created.status).toBe(201);
    const audit = await http().get('/audit').set('Authorization', ADMIN);
    expect(audit.body.items[0]).toMatchObject({
      action: 'job.created',
      actor: 'Ada Lovelace <ada@example.com>',
      targetId: created.body.id,
    });
  });

  it('a change through a session from another origin, or naming none, is refused and changes nothing (CSRF)', async () => {
    const session = await signIn('ada');
    const before = await t.db.sql(`SELECT count(*) AS n FROM jobs`);
    for (const origin of ['http://evil.test', 'null', undefined]) {
      let req = http().post('/jobs').set('Cookie', `orbit_session=${session}`);
      if (origin !== undefined) req = req.set('Origin', origin);
      const res = await req.send(jobBody({ name: `csrf-${origin}` }));
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
      expect(res.body.message).toContain(`must come from ${ORBIT}`);
    }
    expect((await t.db.sql(`SELECT count(*) AS n FROM jobs`)).rows).toEqual(before.rows);
    // reads need no Origin; a bearer token is unaffected
    expect((await http().get('/jobs').set('Cookie', `orbit_session=${session}`)).status).toBe(200);
    const withToken = await http()
      .post('/jobs')
      .set('Authorization', ADMIN)
      .set('Origin', 'http://evil.test')
      .send(jobBody());
    expect(withToken.status).toBe(201);
  });

  it('sign-out ends the session (and says where to end it at the issuer); the cookie no longer signs in', async () => {
    const session = await signIn('ada');
    const out = await http().post('/auth/logout').set(asPerson(session));
    expect(out.status).toBe(200);
    expect(out.body.redirectTo).toMatch(new RegExp(`^${issuer.url}/session/end\\?`));
    expect(new URL(out.body.redirectTo as string).searchParams.get('post_logout_redirect_uri')).toBe(`${ORBIT}/ui/`);
    expect(out.headers['set-cookie']).toEqual([expect.stringMatching(/^orbit_session=; Max-Age=0/)]);

    const after = await http().get('/auth/me').set(asPerson(session));
    expect(after.status).toBe(401);
    expect(after.body.message).toContain('Your session ended');
  });

  it('a session ends after ORBIT_SESSION_IDLE_MINUTES without use, and after ORBIT_SESSION_MAX_HOURS however used', async () => {
    const idle = await signIn('ada');
    clock.advance(59 * 60_000);
    expect((await http().get('/auth/me').set(asPerson(idle))).status).toBe(200);
    clock.advance(59 * 60_000); // used 59 minutes ago: still live
    expect((await http().get('/auth/me').set(asPerson(idle))).status).toBe(200);
    clock.advance(61 * 60_000);
    expect((await http().get('/auth/me').set(asPerson(idle))).status).toBe(401);

    clock.set(new Date());
    const busy = await signIn('ada');
    for (let minutes = 0; minutes < 11 * 60 + 30; minutes += 30) {
      clock.advance(30 * 60_000);
      expect((await http().get('/auth/me').set(asPerson(busy))).status).toBe(200);
    }
    clock.advance(30 * 60_000); // 12 hours after sign-in
    expect((await http().get('/auth/me').set(asPerson(busy))).status).toBe(401);
  });

  it('a session past its end by a day is deleted at the next sign-in', async () => {
    const old = await signIn('ada');
    clock.advance(37 * 3_600_000);
    await signIn('ada');
    const hashes = (await t.db.sql(`SELECT secret_hash FROM sessions`)).rows.map(
      (row: { secret_hash: string }) => row.secret_hash,
    );
    expect(hashes).not.toContain(createHash('sha256').update(old).digest('hex'));
    expect(hashes.length).toBeGreaterThan(0);
  });

  it('/metrics spans every team: a person, even an Orbit admin, needs an organisation-wide token for it', async () => {
    const session = await signIn('ada');
    const res = await http().get('/metrics').set(asPerson(session));
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('needs an organisation-wide token');
    expect((await http().get('/metrics').set('Authorization', ADMIN)).status).toBe(200);
  });

  it('an Orbit admin removes a person: their sessions end at once and a new sign-in is refused', async () => {
    const session = await signIn('cyd');
    const me = await http().get('/auth/me').set(asPerson(session));
    const removed = await http().delete(`/users/${me.body.userId}`).set('Authorization', ADMIN);
    expect(removed.status).toBe(204);
    expect((await http().get('/auth/me').set(asPerson(session))).status).toBe(401);

    const { authorizationUrl, stateCookie } = await startSignIn();
    const again = await callback(await throughIssuer(authorizationUrl, 'cyd'), stateCookie);
    expect(again.status).toBe(400);
    expect(again.text).toContain('An Orbit admin removed Cyd Nobody from Orbit');
    expect(again.session).toBeUndefined();
    const users = await http().get('/users').set('Authorization', ADMIN);
    expect(users.body.items).toContainEqual(
      expect.objectContaining({ name: 'Cyd Nobody', removedAt: expect.any(String) }),
    );
  });

  describe('personal tokens', () => {
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const grant = (role: string) =>
      http()
        .put('/teams/default/grants')
        .set('Authorization', ADMIN)
        .send({ grants: role ? [{ kind: 'group', subject: 'payments', role }] : [] })
        .expect(200);

    afterEach(() => grant(''));

    it('a person issues a token bound to themselves, with at most their role, and an expiry', async () => {
      await grant('operator');
      const session = await signIn('bob');
      const issued = await http()
        .post('/tokens')
        .set(asPerson(session))
        .send({ name: 'bob-laptop', role: 'operator', expiresAt: inDays(30) });
      expect(issued.status).toBe(201);
      expect(issued.body).toMatchObject({
        name: 'bob-laptop',
        role: 'operator',
        team: 'default',
        userId: expect.any(String),
      });

      const me = await http().get('/auth/me').set('Authorization', `Bearer ${issued.body.token}`);
      expect(me.body).toMatchObject({
        kind: 'user',
        tokenId: issued.body.id,
        name: 'Bob Payne',
        role: 'operator',
        teams: [{ name: 'default', role: 'operator' }],
      });
      const job = await http().post('/jobs').set('Authorization', ADMIN).send(jobBody()).expect(201);
      const run = await http()
        .post(`/jobs/${job.body.id}/executions`)
        .set('Authorization', `Bearer ${issued.body.token}`);
      expect(run.status).toBe(201);
      const audit = await http().get('/audit?action=execution.triggered').set('Authorization', ADMIN);
      expect(audit.body.items[0]).toMatchObject({ actor: 'Bob Payne <bob@example.com>', targetId: run.body.id });

      // a person sees and revokes their own tokens only
      const mine = await http().get('/tokens').set(asPerson(session));
      expect(mine.body.items.map((t: { id: string }) => t.id)).toEqual([issued.body.id]);
      const adminsToken = await http().post('/tokens').set('Authorization', ADMIN).send({ name: 'ci', role: 'viewer' });
      expect((await http().delete(`/tokens/${adminsToken.body.id}`).set(asPerson(session))).status).toBe(404);
      expect((await http().delete(`/tokens/${issued.body.id}`).set(asPerson(session))).status).toBe(204);
      expect((await http().get('/auth/me').set('Authorization', `Bearer ${issued.body.token}`)).status).toBe(401);
    });

    it('refuses more than their own role, no expiry, an expiry too far, and a team they are not in', async () => {
      await grant('viewer');
      const session = await signIn('bob');
      const send = (body: object) => http().post('/tokens').set(asPerson(session)).send(body);
      const above = await send({ name: 'x', role: 'operator', expiresAt: inDays(1) });
      expect({ status: above.status, message: above.body.message }).toEqual({
        status: 403,
        message: 'A personal token has at most your own role in default: viewer',
      });
      expect((await send({ name: 'x', role: 'viewer' })).body).toMatchObject({ statusCode: 400, field: 'expiresAt' });
      expect((await send({ name: 'x', role: 'viewer', expiresAt: inDays(400) })).body.message).toBe(
        'expiresAt must be in the future and at most 366 days ahead',
      );
      await http().post('/teams').set('Authorization', ADMIN).send({ name: 'secret-team' }).expect(201);
      const foreign = await send({ name: 'x', role: 'viewer', team: 'secret-team', expiresAt: inDays(1) });
      expect({ status: foreign.status, message: foreign.body.message }).toEqual({
        status: 404,
        message: 'Team secret-team not found',
      });
    });

    it("an admin's team token holds in its team only", async () => {
      await http().post('/teams').set('Authorization', ADMIN).send({ name: 'payments' }).expect(201);
      const send = (body: object) => http().post('/tokens').set('Authorization', ADMIN).send(body).expect(201);
      const payments = await send({ name: 'payments-ci', role: 'operator', team: 'payments' });
      const inDefault = await send({ name: 'default-ci', role: 'viewer', team: 'default', expiresAt: inDays(1) });
      const as = (token: string) => ({ Authorization: `Bearer ${token}` });

      expect((await http().get('/auth/me').set(as(payments.body.token))).body).toMatchObject({
        kind: 'token',
        role: 'operator',
        admin: false,
        teams: [{ name: 'payments', role: 'operator' }],
      });
      const job = await http().post('/jobs').set('Authorization', ADMIN).send(jobBody()).expect(201);
      const ids = async (token: string) =>
        (await http().get('/jobs').set(as(token)).expect(200)).body.items.map((j: { id: string }) => j.id);
      expect(await ids(payments.body.token)).toEqual([]);
      expect(await ids(inDefault.body.token)).toContain(job.body.id);
      expect((await http().get(`/jobs/${job.body.id}`).set(as(payments.body.token))).status).toBe(404);
      clock.advance(2 * 86_400_000);
      expect((await http().get('/jobs').set(as(inDefault.body.token))).status).toBe(401);
    });

    it('stops working when the person loses the grant, or is removed, and follows a lowered role', async () => {
      await grant('operator');
      const session = await signIn('bob');
      const issued = await http()
        .post('/tokens')
        .set(asPerson(session))
        .send({ name: 'bob-ci', role: 'operator', expiresAt: inDays(7) })
        .expect(201);
      const asToken = () => http().get('/auth/me').set('Authorization', `Bearer ${issued.body.token}`);
      await grant('viewer');
      expect((await asToken()).body).toMatchObject({ role: 'viewer' });
      await grant('');
      expect((await asToken()).status).toBe(401);
      await grant('operator');
      expect((await asToken()).status).toBe(200);
      const me = await asToken();
      await http().delete(`/users/${me.body.userId}`).set('Authorization', ADMIN).expect(204);
      expect((await asToken()).status).toBe(401);
      await t.db.sql(`UPDATE users SET removed_at = NULL WHERE id = $1`, [me.body.userId]);
    });
  });

  describe('every refusal of the callback: a clear page, and no session', () => {
    async function expectRefused(answer: Callback, reason: string | RegExp, sessionsBefore: number) {
      expect({ status: answer.status, session: answer.session }).toEqual({ status: 400, session: undefined });
      expect(answer.contentType).toMatch(/^text\/html/);
      expect(answer.text).toContain('Sign-in refused');
      expect(answer.text).toMatch(reason);
      expect(answer.text).toContain(`${ORBIT}/auth/login`);
      expect(await sessions()).toBe(sessionsBefore);
    }

    it('a state that is not the one this browser was given', async () => {
      const before = await sessions();
      const { authorizationUrl } = await startSignIn();
      const other = await startSignIn();
      const back = await throughIssuer(authorizationUrl, 'ada');
      await expectRefused(await callback(back, other.stateCookie), 'was not started in this browser', before);
      await expectRefused(await callback(back, undefined), 'was not started in this browser', before);
    });

    it('a replayed answer, and a code redeemed twice', async () => {
      const before = await sessions();
      const first = await startSignIn();
      const second = await startSignIn();
      const back = await throughIssuer(first.authorizationUrl, 'ada');
      const signedIn = await callback(back, first.stateCookie);
      expect(signedIn.status).toBe(302);
      await expectRefused(await callback(back, first.stateCookie), 'used already', before + 1);
      // the first code, brought back under the second sign-in's state: the issuer refuses it
      const replay = new URL(back);
      replay.searchParams.set('state', second.stateCookie);
      await expectRefused(
        await callback(replay.href, second.stateCookie),
        /refused the sign-in&#39;s code \(invalid_grant\)/,
        before + 1,
      );
    });

    it('an answer older than 10 minutes', async () => {
      const before = await sessions();
      const { authorizationUrl, stateCookie } = await startSignIn();
      const back = await throughIssuer(authorizationUrl, 'ada');
      clock.advance(11 * 60_000);
      await expectRefused(await callback(back, stateCookie), 'older than 10 minutes', before);
    });

    it('the issuer saying no', async () => {
      const before = await sessions();
      const { stateCookie } = await startSignIn();
      const back = `${ORBIT}/auth/callback?error=access_denied&error_description=The+user+said+no&state=${stateCookie}`;
      await expectRefused(
        await callback(back, stateCookie),
        'The issuer refused the sign-in: The user said no',
        before,
      );
    });

    const forgeries: Array<[string, () => IdTokenTamper, RegExp]> = [
      [
        'a wrong nonce',
        () => ({ claims: { nonce: 'someone-elses-nonce' } }),
        /unexpected ID Token &quot;nonce&quot; claim value/,
      ],
      [
        'an expired ID token',
        () => {
          const now = Math.floor(Date.now() / 1000);
          return { claims: { iat: now - 7200, exp: now - 3600 } };
        },
        /&quot;exp&quot; \(expiration time\) claim value, expiration is past/,
      ],
      ['a wrongly signed ID token', () => ({ signedWithOtherKey: true }), /JWT signature verification failed/],
      ['an alg: none ID token', () => ({ algNone: true }), /unexpected JWT &quot;alg&quot; header parameter/],
      ['a wrong audience', () => ({ claims: { aud: 'someone-else' } }), /&quot;aud&quot; \(audience\) claim value/],
      ['a wrong issuer', () => ({ claims: { iss: 'http://evil.test' } }), /&quot;iss&quot; \(issuer\) claim value/],
    ];

    it.each(forgeries)('%s', async (_, tamper, reason) => {
      const before = await sessions();
      const { authorizationUrl, stateCookie } = await startSignIn();
      const back = await throughIssuer(authorizationUrl, 'ada');
      issuer.tamper = tamper();
      const answer = await callback(back, stateCookie);
      await expectRefused(answer, 'failed Orbit&#39;s checks', before);
      expect(answer.text).toMatch(reason);
    });
  });
});

describe('sign-in without an issuer', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ asAdmin: false });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('offers only tokens, and /auth/login says what to set', async () => {
    const providers = await request(t.app.getHttpServer()).get('/auth/providers');
    expect(providers.body).toEqual({ oidc: null, token: true });
    const login = await request(t.app.getHttpServer()).get('/auth/login');
    expect(login.status).toBe(404);
    expect(login.body.message).toContain('set ORBIT_OIDC_ISSUER and ORBIT_OIDC_CLIENT_ID');
  });

  it('a session cookie that names no session is a 401, not a sign-in', async () => {
    const res = await request(t.app.getHttpServer()).get('/jobs').set('Cookie', 'orbit_session=forged');
    expect(res.status).toBe(401);
  });
});

describe('people named by a trusted proxy', () => {
  const HEADERS = { ORBIT_TRUSTED_USER_HEADER: 'X-Forwarded-User', ORBIT_TRUSTED_GROUPS_HEADER: 'X-Forwarded-Groups' };
  let trusted: TestApp;
  let untrusted: TestApp;

  beforeAll(async () => {
    trusted = await createTestApp({
      asAdmin: false,
      env: { ...HEADERS, ORBIT_TRUSTED_PROXIES: '127.0.0.1, ::1', ORBIT_OIDC_ADMIN_GROUPS: 'ops' },
    });
    untrusted = await createTestApp({
      asAdmin: false,
      db: trusted.db,
      env: { ...HEADERS, ORBIT_TRUSTED_PROXIES: '10.0.0.0/8', ORBIT_OIDC_ADMIN_GROUPS: 'ops' },
    });
  });

  afterAll(async () => {
    await untrusted?.close();
    await trusted?.close();
  });

  it('from a trusted proxy, the headers name the person and their groups', async () => {
    const res = await request(trusted.app.getHttpServer())
      .get('/auth/me')
      .set('X-Forwarded-User', 'dee@example.com')
      .set('X-Forwarded-Groups', 'ops, payments');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'user',
      name: 'dee@example.com',
      email: 'dee@example.com',
      admin: true,
      role: 'admin',
    });
  });

  it('a change named by the proxy must still come from ORBIT_PUBLIC_URL', async () => {
    const res = await request(trusted.app.getHttpServer())
      .post('/jobs')
      .set('X-Forwarded-User', 'dee@example.com')
      .set('X-Forwarded-Groups', 'ops')
      .set('Origin', 'http://evil.test')
      .send(jobBody());
    expect(res.status).toBe(403);
  });

  it('from any other address the headers are ignored', async () => {
    const res = await request(untrusted.app.getHttpServer())
      .get('/auth/me')
      .set('X-Forwarded-User', 'dee@example.com')
      .set('X-Forwarded-Groups', 'ops');
    expect(res.status).toBe(401);
  });
});
