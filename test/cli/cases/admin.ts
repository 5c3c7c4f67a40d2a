import { statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { TEST_ADMIN_TOKEN } from '../../support/test-app.js';
import { freePort, waitFor } from '../../support/wait.js';
import type { Body, Harness } from '../harness.js';

export function adminCases(h: Harness): void {
  describe('workers', () => {
    it('workers list shows the node’s worker under headers; drain and resume change what it claims', async () => {
      const list = await h.cli(['workers', 'list']);
      expect(list.code).toBe(0);
      const [header, row] = list.stdout.split('\n');
      expect(header).toMatch(
        /^WORKER\s+HOST\s+PID\s+VERSION\s+CONCURRENCY\s+RUNNING\s+LOAD\s+RUNS NOW\s+STATE\s+LAST HEARTBEAT$/,
      );
      expect(row).toMatch(/\s+\d+\.\d\d on \d+\s+-\s+alive\s+\d+ s ago$/);
      const [worker] = JSON.parse((await h.cli(['workers', 'list', '--json'])).stdout) as Body[];
      const id = String(worker!.id);
      expect(await h.cli(['workers', 'drain', id])).toEqual({ code: 0, stdout: `Draining worker ${id}\n`, stderr: '' });
      expect((await h.cli(['workers', 'list'])).stdout).toMatch(/\s+draining\s+/);
      const resumed = JSON.parse((await h.cli(['workers', 'resume', id, '--json'])).stdout) as Body;
      expect(resumed).toMatchObject({ id, draining: false });
    });
  });

  it('workers list shows each worker’s load and the runs it holds now, in the table and in the JSON', async () => {
    const job = await h.job({ name: 'cli-held-run', command: 'sleep 30', cronExpression: null });
    const run = (
      await h
        .api()
        .post(`/jobs/${String(job.id)}/executions`)
        .send({})
        .expect(201)
    ).body as Body;
    const id = String(run.id);
    try {
      const [worker] = await waitFor(async () => {
        const listed = JSON.parse((await h.cli(['workers', 'list', '--json'])).stdout) as Body[];
        return (listed[0]!.executions as Body[]).length > 0 ? listed : undefined;
      }, 'the run to start');
      expect(worker).toMatchObject({
        loadAverage: expect.any(Number),
        cpus: expect.any(Number),
        executions: [{ id, jobId: job.id, jobName: 'cli-held-run', startedAt: expect.any(String) }],
      });
      const [, row] = (await h.cli(['workers', 'list'])).stdout.split('\n');
      // the load as the table prints it; its value may have moved since the JSON (a heartbeat between)
      expect(row).toMatch(new RegExp(`  \\d+\\.\\d\\d on ${String(worker!.cpus)}  cli-held-run ${id.slice(0, 8)}  `));
    } finally {
      await h.api().post(`/executions/${id}/cancel`).send({}).expect(200);
    }
  });

  describe('tokens (through the API)', () => {
    it('tokens create prints the secret alone on stdout; list shows it; revoke takes the short id', async () => {
      const created = await h.cli(['tokens', 'create', '--name', 'ci', '--role', 'operator']);
      expect(created.code).toBe(0);
      const secret = created.stdout.trim();
      expect(created.stderr).toMatch(
        /^Created token 'ci' \(operator\), id ([0-9a-f-]{36})\. The secret, shown once:\n$/,
      );
      const id = /id ([0-9a-f-]{36})/.exec(created.stderr)![1]!;
      const list = await h.cli(['tokens', 'list']);
      expect(list.stdout).toMatch(/^TOKEN\s+NAME\s+ROLE\s+CREATED\n/);
      expect(list.stdout).toMatch(new RegExp(`\\n${id.slice(0, 8)}\\s+ci\\s+operator\\s+\\d+ s ago\\n`));
      expect(await h.cli(['jobs', 'list', '--json'], { ORBIT_TOKEN: secret })).toMatchObject({ code: 0 });
      expect(await h.cli(['tokens', 'revoke', id.slice(0, 8)])).toEqual({
        code: 0,
        stdout: `Revoked token ${id}\n`,
        stderr: '',
      });
      expect((await h.cli(['jobs', 'list'], { ORBIT_TOKEN: secret })).code).toBe(1);
      const listed = JSON.parse((await h.cli(['tokens', 'list', '--json'])).stdout) as Body[];
      expect(listed.map((token) => token.id)).not.toContain(id);
    });
  });

  describe('events', () => {
    it('events lists the state changes in order under headers, with the job’s name; --after starts after one', async () => {
      const all = JSON.parse((await h.cli(['events', '--json'])).stdout) as Body[];
      expect(all.length).toBeGreaterThan(2);
      const after = Number(all[all.length - 3]!.seq);
      const later = JSON.parse((await h.cli(['events', '--after', String(after), '--json'])).stdout) as Body[];
      expect(later.map((event) => event.seq)).toEqual(all.slice(-2).map((event) => event.seq));
      const table = await h.cli(['events', '--after', String(after)]);
      expect(table.stdout.split('\n')[0]).toMatch(/^SEQ\s+AT\s+EVENT\s+JOB\s+RUN\s+STATUS\s+EXIT$/);
      expect(table.stdout.trim().split('\n')).toHaveLength(3);
    });
  });

  describe('events -f for people', () => {
    it('prints each new state change as a line: its seq, the local time, the job by name', async () => {
      const following = h.start(['events', '--follow']);
      let made = 0;
      const line = await waitFor(async () => {
        const name = `followed-${++made}`;
        await h.job({ name, command: 'true', cronExpression: '@yearly' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        return following
          .stdout()
          .split('\n')
          .find((printed) => printed.endsWith(`job.created  ${name}`));
      }, 'a job.created line, live');
      following.child.kill();
      await following.done;
      expect(line).toMatch(/^\d+ {2}\d\d:\d\d:\d\d {2}job\.created {2}followed-\d+$/);
    });
  });

  describe('where Orbit is, and as whom', () => {
    it('--url names the Orbit to talk to, over ORBIT_URL', async () => {
      const result = await h.cli(['--url', h.fresh.url, 'jobs', 'list', '--json'], { ORBIT_URL: 'http://127.0.0.1:9' });
      expect(result.code).toBe(0);
      const names = (JSON.parse(result.stdout) as Body[]).map((job) => job.name);
      expect(names).toEqual(expect.arrayContaining(['queued-only', 'twins']));
    });

    it('with no token, it says how to give one', async () => {
      expect(await h.cli(['jobs', 'list'], { ORBIT_TOKEN: '' })).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'orbit: No token: set ORBIT_TOKEN=<token>, or store one with `orbit login` ' +
          '(Orbit prints the first admin token when it first starts; `orbit tokens create` makes more)\n',
      });
    });

    it('a wrong token prints the API’s message and exits non-zero', async () => {
      const result = await h.cli(['jobs', 'list'], { ORBIT_TOKEN: 'orbit_not-a-token' });
      const refusal = await request(h.orbit.t.app.getHttpServer())
        .get('/jobs')
        .set('Authorization', 'Bearer orbit_not-a-token');
      expect(refusal.status).toBe(401);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `orbit: ${(refusal.body as { message: string }).message}\n`,
      });
    });

    it('an Orbit that is not there is named', async () => {
      const nowhere = `http://127.0.0.1:${await freePort()}`;
      const result = await h.cli(['jobs', 'list'], {}, { url: nowhere });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `orbit: Cannot reach Orbit at ${nowhere}: ECONNREFUSED\n`,
      });
    });

    it('login --token checks the token, stores it readable by the user alone, and the next commands use it', async () => {
      const config = join(h.home, 'login-config');
      const login = await h.cli(['login', '--token', TEST_ADMIN_TOKEN], { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '' });
      expect(login.code).toBe(0);
      expect(login.stdout).toBe(
        `Logged in to ${h.orbit.url} as 'ORBIT_ADMIN_TOKEN' (admin); stored in ${config}/orbit/config.json\n`,
      );
      expect(statSync(join(config, 'orbit/config.json')).mode & 0o777).toBe(0o600);
      const list = await h.cli(['jobs', 'list', '--json'], { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '', ORBIT_URL: '' });
      expect(list.code).toBe(0);
      const refused = await h.cli(['login', '--token', 'orbit_wrong'], {
        XDG_CONFIG_HOME: join(h.home, 'other'),
        ORBIT_TOKEN: '',
      });
      expect(refused.code).toBe(1);
      expect(() => statSync(join(h.home, 'other/orbit/config.json'))).toThrow();
    });

    it('login --sso against an Orbit without a sign-in issuer says to use a token, and stores nothing', async () => {
      const config = join(h.home, 'sso-config');
      const login = await h.cli(['login', '--sso', '--loopback', '--no-browser', '--team', 'default'], {
        XDG_CONFIG_HOME: config,
        ORBIT_TOKEN: '',
      });
      expect(login).toEqual({
        code: 1,
        stdout: '',
        stderr: `orbit: ${h.orbit.url} has no sign-in issuer set up: use \`orbit login --token <token>\` instead\n`,
      });
      expect(() => statSync(join(config, 'orbit/config.json'))).toThrow();
    });

    it('login reads the token from stdin, so that it stays out of the shell’s history', async () => {
      const config = join(h.home, 'piped-config');
      const login = await h.cli(
        ['--json', 'login', '--url', h.fresh.url],
        { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '' },
        { input: `${TEST_ADMIN_TOKEN}\n` },
      );
      expect(login.code).toBe(0);
      expect(JSON.parse(login.stdout)).toMatchObject({ url: h.fresh.url, role: 'admin' });
      const list = await h.cli(['jobs', 'list', '--json'], { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '', ORBIT_URL: '' });
      expect((JSON.parse(list.stdout) as Body[]).map((job) => job.name)).toContain('queued-only');
    });
  });
}
