import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import {
  CookieJar,
  issuerEnv,
  startTestIssuer,
  TestIssuer,
  throughDevicePages,
  throughIssuer,
} from '../support/oidc-issuer.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { freePort, waitFor } from '../support/wait.js';
import { buildCli, RunningCli, startCli } from './support.js';

/** What a browser does with an address: follows Orbit's and the issuer's redirects, cookies kept, to the command line's loopback address. */
async function browse(url: string, login: string): Promise<string> {
  const jar = new CookieJar();
  const start = await fetch(url, { redirect: 'manual' });
  jar.keep(url, start.headers.getSetCookie());
  const back = await throughIssuer(start.headers.get('location')!, login, jar);
  const callback = await fetch(back, { redirect: 'manual', headers: { cookie: jar.header(back) } });
  expect(callback.status).toBe(302);
  return callback.headers.get('location')!;
}

const BOB = { login: 'bob', name: 'Bob Payne', email: 'bob@example.com', groups: ['payments'] };

/** An Orbit on a loopback port that signs people in through `issuer`, where group payments is operator in default. */
async function orbitWith(issuerOf: (orbit: string) => Promise<TestIssuer>) {
  const port = await freePort();
  const orbit = `http://127.0.0.1:${port}`;
  const issuer = await issuerOf(orbit);
  const t = await createTestApp({ asAdmin: false, env: issuerEnv(issuer, orbit) });
  await t.app.listen(port, '127.0.0.1');
  await request(t.app.getHttpServer())
    .put('/teams/default/grants')
    .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
    .send({ grants: [{ kind: 'group', subject: 'payments', role: 'operator' }] })
    .expect(200);
  return { orbit, issuer, t };
}

/** `orbit login --sso` with an issuer that offers no device grant: the person signs in in a browser; the command line gets a personal token. */
describe('orbit login --sso through a browser and a loopback address', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let orbit: string;
  let entry: string;
  let home: string;

  beforeAll(async () => {
    ({ orbit, issuer, t } = await orbitWith((base) => startTestIssuer([base], [BOB])));
    entry = await buildCli();
    home = mkdtempSync(join(tmpdir(), 'orbit-sso-'));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('prints the address, takes the browser back on loopback, and stores a personal token for 30 days', async () => {
    const providers = await request(t.app.getHttpServer()).get('/auth/providers');
    expect(providers.body.oidc.deviceGrant).toBe(false);
    const cli = startCli(entry, ['login', '--sso', '--no-browser', '--url', orbit], {
      HOME: home,
      XDG_CONFIG_HOME: home,
    });
    const address = await waitFor(() => /\n {2}(http\S+)\n/.exec(cli.stderr())?.[1], 'the address to open');
    expect(address).toMatch(new RegExp(`^${orbit}/auth/login\\?cli_port=\\d+&cli_challenge=[\\w-]{43}$`));

    const loopback = await browse(address, 'bob');
    expect(loopback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=[\w-]{43}$/);
    expect(await (await fetch(loopback)).text()).toContain('You can close this tab');
    const done = await cli.done;

    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(
        `^Logged in to ${orbit} as 'Bob Payne' \\(operator\\); stored in ${home}/orbit/config\\.json; the token expires \\S+\\n$`,
      ),
    );
    expect(statSync(join(home, 'orbit/config.json')).mode & 0o777).toBe(0o600);
    const { token } = JSON.parse(readFileSync(join(home, 'orbit/config.json'), 'utf8')) as { token: string };
    const me = await request(t.app.getHttpServer()).get('/auth/me').set('Authorization', `Bearer ${token}`);
    expect(me.body).toMatchObject({
      kind: 'user',
      name: 'Bob Payne',
      role: 'operator',
      teams: [{ name: 'default', role: 'operator' }],
    });
    const tokens = await request(t.app.getHttpServer())
      .get('/tokens')
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
    const stored = (tokens.body.items as { name: string; expiresAt: string; userId: string }[]).find((x) => x.userId);
    expect(stored!.name).toMatch(/^orbit CLI on /);
    const days = (Date.parse(stored!.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('a code is redeemed once, and only with the verifier of the challenge it was started with', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const loopback = await browse(`${orbit}/auth/login?cli_port=40000&cli_challenge=${challenge}`, 'bob');
    const code = new URL(loopback).searchParams.get('code')!;
    const redeem = (body: object) =>
      request(t.app.getHttpServer())
        .post('/auth/cli-token')
        .send({ name: 'cli', ...body });

    const stolen = await redeem({ code, verifier: randomBytes(32).toString('base64url') });
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toContain('This sign-in code is unknown, used already, expired');
    // the failed try used the code up: a thief who guessed wrong leaves nothing to retry with
    expect((await redeem({ code, verifier })).status).toBe(400);
    expect((await redeem({ code: 'not-a-code', verifier })).status).toBe(400);

    const again = new URL(
      await browse(`${orbit}/auth/login?cli_port=40000&cli_challenge=${challenge}`, 'bob'),
    ).searchParams.get('code')!;
    expect((await redeem({ code: again, verifier })).status).toBe(201);
    expect((await redeem({ code: again, verifier })).status).toBe(400);
    const bad = await request(t.app.getHttpServer()).get('/auth/login?cli_port=80&cli_challenge=short');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'cli_port must be a port from 1024 to 65535; cli_challenge must be an S256 PKCE challenge (43 characters of base64url)',
    );
  });
});

/** What the command line printed on stderr once it matches `pattern`; its output, should it end first. */
async function said(cli: RunningCli, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const ended = cli.done.then((done) => {
    throw new Error(`orbit ended (${done.code}) before printing ${what}: ${done.stderr}`);
  });
  return Promise.race([waitFor(() => pattern.exec(cli.stderr()) ?? undefined, what), ended]);
}

/** `orbit login --sso` where the issuer offers the device grant: a code to enter on any device, and Orbit polls the issuer. */
describe('orbit login --sso through the device grant', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let orbit: string;
  let entry: string;
  let home: string;

  beforeAll(async () => {
    ({ orbit, issuer, t } = await orbitWith((base) =>
      startTestIssuer([base], [BOB], { deviceFlow: true, deviceInterval: 1 }),
    ));
    entry = await buildCli();
    home = mkdtempSync(join(tmpdir(), 'orbit-device-'));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  beforeEach(() => {
    issuer.tamper = null;
    issuer.deviceCodeSeconds = 600;
  });

  const http = () => request(t.app.getHttpServer());
  const poll = (handle: string) => http().post('/auth/device/token').send({ handle, name: 'cli' });
  const personalTokens = async () =>
    Number((await t.db.sql(`SELECT count(*) AS n FROM api_tokens WHERE user_id IS NOT NULL`)).rows[0].n);
  const login = (config: string) =>
    startCli(entry, ['login', '--sso', '--no-browser', '--url', orbit], { HOME: home, XDG_CONFIG_HOME: config });
  /** What the command line tells the person: where to go, the code, and the address with the code in it. */
  const shown = async (cli: RunningCli) => {
    const [, uri, code, complete] = await said(
      cli,
      /Open (\S+) and enter the code (\S+)\n {2}or open (\S+)\n/,
      'the code to enter',
    );
    return { uri: uri!, code: code!, complete: complete! };
  };

  it('GET /auth/providers says the issuer offers the device grant', async () => {
    const res = await http().get('/auth/providers');
    expect(res.body).toEqual({
      oidc: { name: 'Test SSO', loginUrl: '/auth/login', deviceGrant: true },
      token: true,
    });
  });

  it('shows the code, the person confirms it at the issuer, and a personal token for 30 days is stored', async () => {
    const config = join(home, 'signed-in');
    const cli = login(config);
    const { uri, code, complete } = await shown(cli);
    expect(uri).toBe(`${issuer.url}/device`);
    expect(code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(complete).toBe(`${issuer.url}/device?user_code=${code}`);

    expect(await throughDevicePages(complete, 'bob')).toContain('Signed in: return to your device');
    const done = await cli.done;

    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(
        `^Logged in to ${orbit} as 'Bob Payne' \\(operator\\); stored in ${config}/orbit/config\\.json; the token expires \\S+\\n$`,
      ),
    );
    expect(statSync(join(config, 'orbit/config.json')).mode & 0o777).toBe(0o600);
    const { token } = JSON.parse(readFileSync(join(config, 'orbit/config.json'), 'utf8')) as { token: string };
    const me = await http().get('/auth/me').set('Authorization', `Bearer ${token}`);
    expect(me.body).toMatchObject({ kind: 'user', name: 'Bob Payne', teams: [{ name: 'default', role: 'operator' }] });
    const tokens = await http().get('/tokens').set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
    const stored = (tokens.body.items as { id: string; name: string; expiresAt: string; userId: string }[]).find(
      (x) => x.userId && x.id === me.body.tokenId,
    );
    expect(stored?.name).toMatch(/^orbit CLI on /);
    const days = (Date.parse(stored!.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect((await t.db.sql(`SELECT count(*) AS n FROM device_sign_ins`)).rows[0].n).toBe('0');
  });

  it('without --no-browser, opens the browser at the address holding the code, where the person confirms', async () => {
    // the desktop's opener (xdg-open on Linux), which records the address it was given
    const bin = mkdtempSync(join(home, 'bin-'));
    const opened = join(bin, 'opened');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const config = join(home, 'opened-browser');
    const cli = startCli(entry, ['login', '--sso', '--url', orbit], {
      HOME: home,
      XDG_CONFIG_HOME: config,
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    const { complete } = await shown(cli);
    const address = await waitFor(
      () => (existsSync(opened) ? readFileSync(opened, 'utf8') || undefined : undefined),
      'the browser',
    );
    expect(address).toBe(complete);

    expect(await throughDevicePages(address, 'bob')).toContain('Signed in: return to your device');
    const done = await cli.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`Logged in to ${orbit} as 'Bob Payne'`);
  });

  it('answers authorization_pending until the person confirms, then the token; a handle gives one token', async () => {
    const started = await http().post('/auth/device').send({});
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verificationUri: `${issuer.url}/device`,
      verificationUriComplete: `${issuer.url}/device?user_code=${started.body.userCode}`,
      interval: 1,
      expiresIn: 600,
      handle: expect.stringMatching(/^[\w-]{43}$/),
    });
    const { handle, userCode } = started.body as { handle: string; userCode: string };
    // the database keeps only the handle's hash, and the issuer's device code is not the handle
    const row = (
      await t.db.sql(`SELECT device_code FROM device_sign_ins WHERE handle_hash = $1`, [
        createHash('sha256').update(handle).digest('hex'),
      ])
    ).rows[0] as { device_code: string };
    expect(row.device_code).not.toContain(handle);

    const pending = await poll(handle);
    expect(pending.status).toBe(428);
    expect(pending.body).toMatchObject({ code: 'authorization_pending', interval: 1 });
    expect(pending.body.message).toBe('Not confirmed at the issuer yet: ask again after the interval');

    // the person types the code at the bare address
    expect(await throughDevicePages(started.body.verificationUri, 'bob', { userCode })).toContain('Signed in');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const issued = await poll(handle);
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ name: 'cli', role: 'operator', team: 'default', token: expect.any(String) });
    const me = await http().get('/auth/me').set('Authorization', `Bearer ${issued.body.token}`);
    expect(me.body).toMatchObject({ name: 'Bob Payne', role: 'operator' });

    const twice = await poll(handle);
    expect(twice.status).toBe(404);
    expect(twice.body.message).toBe(
      'This sign-in is unknown, or was redeemed or ended already: start it again (orbit login --sso)',
    );
  });

  it('a poll sooner than the interval is told to slow down, and the interval grows by 5 seconds', async () => {
    const { handle } = (await http().post('/auth/device').send({})).body as { handle: string };
    expect((await poll(handle)).body.code).toBe('authorization_pending');
    const early = await poll(handle);
    expect(early.status).toBe(428);
    expect(early.body).toMatchObject({ code: 'slow_down', interval: 6 });
    const earlier = await poll(handle);
    expect(earlier.body).toMatchObject({ code: 'slow_down', interval: 11 });
  });

  it('a refusal at the issuer is a clear error of the command line, and no token', async () => {
    const before = await personalTokens();
    const config = join(home, 'refused');
    const cli = login(config);
    const { complete } = await shown(cli);
    expect(await throughDevicePages(complete, 'bob', { abort: true })).toContain('The sign-in was aborted');
    const done = await cli.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain('orbit: The sign-in was refused at the issuer');
    expect(done.stderr).toContain('no token was made');
    expect(() => statSync(join(config, 'orbit/config.json'))).toThrow();
    expect(await personalTokens()).toBe(before);
  });

  it('a code that expires unconfirmed is a clear error of the command line, and no token', async () => {
    issuer.deviceCodeSeconds = 2;
    const before = await personalTokens();
    const config = join(home, 'expired');
    const cli = login(config);
    await shown(cli);
    const done = await cli.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/^orbit: The code \S+ expired before the sign-in was confirmed/m);
    expect(() => statSync(join(config, 'orbit/config.json'))).toThrow();
    expect(await personalTokens()).toBe(before);
  });

  it("a poll after the code's expiry answers 410", async () => {
    issuer.deviceCodeSeconds = 1;
    const { handle } = (await http().post('/auth/device').send({})).body as { handle: string };
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const late = await poll(handle);
    expect(late.status).toBe(410);
    expect(late.body.message).toBe(
      'The code expired before the sign-in was confirmed: no token was made; start it again (orbit login --sso)',
    );
  });

  it.each([
    ['another audience', { claims: { aud: 'someone-else' } }, 'unexpected JWT "aud" (audience) claim value'],
    ['another nonce', { claims: { nonce: 'not-the-one-sent' } }, 'unexpected ID Token "nonce" claim value'],
    ['a foreign key', { signedWithOtherKey: true as const }, 'signature'],
    ['alg: none', { algNone: true as const }, 'unexpected JWT "alg" header parameter'],
    ['another issuer', { claims: { iss: 'http://evil.test' } }, 'unexpected JWT "iss" (issuer) claim value'],
  ])('an ID token with %s is refused, and no token is made', async (_, tamper, why) => {
    const before = await personalTokens();
    const started = (await http().post('/auth/device').send({})).body as {
      handle: string;
      verificationUriComplete: string;
    };
    await throughDevicePages(started.verificationUriComplete, 'bob');
    issuer.tamper = tamper;
    const refused = await poll(started.handle);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("The issuer's answer failed Orbit's checks");
    expect(refused.body.message).toContain(why);
    expect(await personalTokens()).toBe(before);
  });
});

/** An issuer whose metadata names a device endpoint it refuses to Orbit's client: the loopback sign-in then. */
describe('orbit login --sso where the issuer refuses Orbit its device grant', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let orbit: string;
  let entry: string;
  let home: string;

  beforeAll(async () => {
    ({ orbit, issuer, t } = await orbitWith((base) =>
      startTestIssuer([base], [BOB], { deviceFlow: true, deviceGrantForOrbit: false }),
    ));
    entry = await buildCli();
    home = mkdtempSync(join(tmpdir(), 'orbit-no-device-'));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('says why, falls back to the browser and loopback, and no longer offers the device grant', async () => {
    expect((await request(t.app.getHttpServer()).get('/auth/providers')).body.oidc.deviceGrant).toBe(true);
    const cli = startCli(entry, ['login', '--sso', '--no-browser', '--url', orbit], {
      HOME: home,
      XDG_CONFIG_HOME: home,
    });
    const [, address] = await said(cli, /\n {2}(http\S+)\n/, 'the address to open');
    expect(cli.stderr()).toContain(
      'The issuer does not let Orbit use the device grant (invalid_request: urn:ietf:params:oauth:grant-type:device_code is not allowed for this client): sign in with a browser on this machine instead',
    );
    expect(await (await fetch(await browse(address!, 'bob'))).text()).toContain('You can close this tab');
    const done = await cli.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^Logged in to .* as 'Bob Payne' \(operator\)/);
    expect((await request(t.app.getHttpServer()).get('/auth/providers')).body.oidc.deviceGrant).toBe(false);
  });
});
