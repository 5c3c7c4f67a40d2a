import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CookieJar, issuerEnv, startTestIssuer, TestIssuer, throughIssuer } from '../support/oidc-issuer.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { freePort, waitFor } from '../support/wait.js';
import { buildCli, startCli } from './support.js';

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

/** `orbit login --sso`: the person signs in in a browser; the command line gets a personal token. */
describe('orbit login --sso', () => {
  let issuer: TestIssuer;
  let t: TestApp;
  let orbit: string;
  let entry: string;
  let home: string;

  beforeAll(async () => {
    const port = await freePort();
    orbit = `http://127.0.0.1:${port}`;
    issuer = await startTestIssuer(
      [orbit],
      [{ login: 'bob', name: 'Bob Payne', email: 'bob@example.com', groups: ['payments'] }],
    );
    t = await createTestApp({
      asAdmin: false,
      env: issuerEnv(issuer, orbit),
    });
    await t.app.listen(port, '127.0.0.1');
    await request(t.app.getHttpServer())
      .put('/teams/default/grants')
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ grants: [{ kind: 'group', subject: 'payments', role: 'operator' }] })
      .expect(200);
    entry = await buildCli();
    home = mkdtempSync(join(tmpdir(), 'orbit-sso-'));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await issuer?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('prints the address, takes the browser back on loopback, and stores a personal token for 30 days', async () => {
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
