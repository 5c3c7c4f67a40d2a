import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { stringify } from 'yaml';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { EventsController } from '../../src/events/http/events.controller.js';
import { ExecutionsController } from '../../src/executions/http/executions.controller.js';
import { buildCli, CliResult, startCli } from './support.js';

type Body = Record<string, unknown>;

const JOBS = {
  backup: { command: 'backup.sh', cronExpression: '0 3 * * *', timezone: 'Europe/Berlin', maxRetries: 2 },
  report: { command: 'report.sh', cronExpression: '@hourly', alerts: [{ channel: 'ops', on: ['failed'] }] },
  cleanup: { command: 'cleanup.sh', cronExpression: '*/15 * * * *', enabled: false },
};
const CHANNELS = { ops: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } };

/** An Orbit listening on a port of its own, as the CLI reaches it. */
async function startOrbit(role: 'all' | 'api', workDir: string): Promise<{ t: TestApp; url: string }> {
  const t = await createTestApp({
    role,
    env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '200', ORBIT_ALERTS_ALLOW_PRIVATE: 'true' },
  });
  await t.app.listen(0, '127.0.0.1');
  return { t, url: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}` };
}

describe('the orbit command line, against a real Orbit', () => {
  let entry: string;
  let home: string;
  let orbit: { t: TestApp; url: string };
  let fresh: { t: TestApp; url: string };
  const file = (name: string, content: unknown) => {
    const path = join(home, name);
    writeFileSync(path, typeof content === 'string' ? content : stringify(content));
    return path;
  };
  const cli = (args: string[], env: Record<string, string> = {}, url = orbit.url): Promise<CliResult> =>
    startCli(entry, args, {
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      ORBIT_URL: url,
      ORBIT_TOKEN: TEST_ADMIN_TOKEN,
      ...env,
    }).done;
  const api = () => request(orbit.t.app.getHttpServer());
  const storedJobs = async (t = orbit.t) =>
    ((await request(t.app.getHttpServer()).get('/jobs?limit=100').expect(200)).body as { items: Body[] }).items;
  const settings = async (t = orbit.t) =>
    Object.fromEntries(
      (await storedJobs(t)).map(
        ({ id: _i, createdAt: _c, updatedAt: _u, nextRunAt: _n, lastExecution: _l, ...job }) => [job.name, job],
      ),
    );

  /**
   * A run of a new job `name` that prints "first", waits for `goOn()`, then prints "second",
   * followed by `orbit logs -f` until its first line shows.
   */
  const followSlowRun = async (name: string) => {
    const marker = join(home, 'work', `go-on-${name}`);
    const command = `echo first; while [ ! -f '${marker}' ]; do sleep 0.1; done; echo second`;
    const job = (await api().post('/jobs').send({ name, command, cronExpression: '@yearly' }).expect(201)).body as Body;
    const run = (
      await api()
        .post(`/jobs/${String(job.id)}/executions`)
        .send({})
        .expect(201)
    ).body as Body;
    const following = startCli(entry, ['logs', '-f', String(run.id)], followEnv());
    await waitFor(() => (following.stdout() === 'first\n' ? true : undefined), 'the first line, live');
    return { run, following, goOn: () => writeFileSync(marker, '') };
  };
  const followEnv = () => ({ HOME: home, ORBIT_URL: orbit.url, ORBIT_TOKEN: TEST_ADMIN_TOKEN });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'orbit-cli-home-'));
    chmodSync(home, 0o755); // as root, commands run as nobody: they must reach the work dir inside
    [entry, orbit, fresh] = await Promise.all([
      buildCli(),
      startOrbit('all', join(home, 'work')),
      startOrbit('api', join(home, 'work-fresh')),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([orbit?.t.close(), fresh?.t.close()]);
    rmSync(home, { recursive: true, force: true });
  });

  describe('apply', () => {
    it('creates the three jobs of a file, with the channel they alert to', async () => {
      const result = await cli(['apply', '-f', file('orbit.yaml', { channels: CHANNELS, jobs: JOBS })]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain(
        '+ create channels.ops\n+ create jobs.backup\n+ create jobs.report\n+ create jobs.cleanup\n',
      );
      expect(result.stdout).toContain('Applied: 4 to create, 0 to update, 0 to delete, 0 unchanged');
      expect(Object.keys(await settings()).sort()).toEqual(['backup', 'cleanup', 'report']);
    });

    it('applying the same file again changes nothing', async () => {
      const before = await storedJobs();
      const result = await cli(['apply', '-f', join(home, 'orbit.yaml')]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('0 to create, 0 to update, 0 to delete, 4 unchanged');
      expect(result.stdout).not.toContain('Applied');
      expect(await storedJobs()).toEqual(before);
    });

    it('an edited job is one update, its changed fields shown; --dry-run stops at the plan', async () => {
      const edited = file('edited.yaml', {
        channels: CHANNELS,
        jobs: { ...JOBS, report: { ...JOBS.report, cronExpression: '@daily' } },
      });
      const dry = await cli(['apply', '-f', edited, '--dry-run']);
      expect(dry.stdout).toContain('~ update jobs.report\n      cronExpression: "@hourly" → "@daily"\n');
      expect(dry.stdout).toContain('0 to create, 1 to update, 0 to delete, 3 unchanged');
      expect((await settings()).report?.cronExpression).toBe('@hourly');
      const result = await cli(['apply', '-f', edited]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Applied: 0 to create, 1 to update, 0 to delete, 3 unchanged');
      expect((await settings()).report?.cronExpression).toBe('@daily');
    });

    it('--prune deletes the jobs an apply created that the file no longer names, and only those', async () => {
      await api().post('/jobs').send({ name: 'by-hand', command: 'x', cronExpression: '@daily' }).expect(201);
      const { cleanup: _gone, ...kept } = JOBS;
      const smaller = file('smaller.yaml', {
        channels: CHANNELS,
        jobs: { ...kept, report: { ...JOBS.report, cronExpression: '@daily' } },
      });
      const without = await cli(['apply', '-f', smaller]);
      expect(without.stdout).toContain('0 to create, 0 to update, 0 to delete, 3 unchanged');
      const result = await cli(['apply', '-f', smaller, '--prune']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('- delete jobs.cleanup\n');
      expect(Object.keys(await settings()).sort()).toEqual(['backup', 'by-hand', 'report']);
    });

    it('a file with one bad job changes nothing, and the error names the job and the field', async () => {
      const before = await storedJobs();
      const bad = file('bad.yaml', {
        jobs: {
          ...JOBS,
          newcomer: { command: 'x', cronExpression: '@daily' },
          broken: { command: 'x', cronExpression: '@daily', timeoutSeconds: 0 },
        },
      });
      const result = await cli(['apply', '-f', bad, '--prune']);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('orbit: jobs.broken: timeoutSeconds must be an integer from 1 to 604800\n');
      expect(await storedJobs()).toEqual(before);
    });

    it('export, then apply to a fresh Orbit, gives the same jobs', async () => {
      const exported = await cli(['export', '-o', join(home, 'exported.yaml')]);
      expect(exported.code).toBe(0);
      // the export holds the channel's URL as a placeholder, filled in from the environment
      const env = { ORBIT_CHANNEL_OPS_URL: CHANNELS.ops.url };
      const result = await cli(['apply', '-f', join(home, 'exported.yaml')], env, fresh.url);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Applied: 4 to create');
      expect(await settings(fresh.t)).toEqual(await settings());
      // back to where it came from: nothing changes, but the job made by hand is now the file's
      const back = await cli(['apply', '-f', join(home, 'exported.yaml')], env);
      expect(back.stdout).toContain('~ adopt jobs.by-hand\n');
      expect(back.stdout).toContain('0 to create, 0 to update, 1 to adopt, 0 to delete, 3 unchanged');
    });
  });

  describe('runs', () => {
    it('run --wait follows the output and exits with the exit code of the run', async () => {
      await api()
        .post('/jobs')
        .send({ name: 'exits-3', command: 'echo about to fail; exit 3', cronExpression: '@yearly' })
        .expect(201);
      const result = await cli(['run', 'exits-3', '--wait']);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('about to fail\n');
      expect(result.stderr).toMatch(/Run [0-9a-f-]{36} FAILED \(exit code 3\)/);
    });

    it('run --wait follows a failed attempt into its retry, and exits with the last attempt’s code', async () => {
      const marker = join(home, 'work', 'tried-once');
      const command = `if [ -f '${marker}' ]; then echo second try; exit 0; fi; touch '${marker}'; echo first try; exit 4`;
      await api().post('/jobs').send({ name: 'flaky', command, cronExpression: '@yearly', maxRetries: 2 }).expect(201);
      const result = await cli(['run', 'flaky', '--wait']);
      expect(result.stdout).toBe('first try\nsecond try\n');
      expect(result.stderr).toMatch(
        /Run ([0-9a-f-]{36}) FAILED \(exit code 4\): Command exited with code 4; attempt 2 is run ([0-9a-f-]{36}), due [0-9T:.-]+Z: following it\n/,
      );
      const [, first, second] = /Run (\S+) FAILED.*attempt 2 is run (\S+),/.exec(result.stderr)!;
      expect(result.stderr).toContain(`Run ${second} SUCCEEDED (exit code 0)\n`);
      expect(result.code).toBe(0);
      const retry = (await api().get(`/executions/${second}`).expect(200)).body as Body;
      expect(retry).toMatchObject({ retryOf: first, attempt: 2, status: 'SUCCEEDED' });
    });

    it('run --wait exits with the code of the last attempt when every attempt fails', async () => {
      await api()
        .post('/jobs')
        .send({ name: 'always-5', command: 'exit 5', cronExpression: '@yearly', maxRetries: 1 })
        .expect(201);
      const result = await cli(['run', 'always-5', '--wait']);
      expect(result.code).toBe(5);
      expect(result.stderr.match(/FAILED \(exit code 5\)/g)).toHaveLength(2);
      expect(result.stderr).toMatch(
        /attempt 2 is run [0-9a-f-]{36}.*\nRun [0-9a-f-]{36} FAILED \(exit code 5\): Command exited with code 5\n$/,
      );
    });

    it('logs -f prints the lines as the command writes them, until the run ends', async () => {
      const { run, following, goOn } = await followSlowRun('slow');
      const running = (
        await api()
          .get(`/executions/${String(run.id)}`)
          .expect(200)
      ).body as Body;
      expect(running.status).toBe('RUNNING');
      goOn();
      expect(await following.done).toEqual({ code: 0, stdout: 'first\nsecond\n', stderr: '' });
    });
  });

  describe('streams that break off', () => {
    it('logs -f opens the stream again and prints nothing twice', async () => {
      const { following, goOn } = await followSlowRun('slow-2');
      // what a node does as it stops: every stream it serves ends
      await orbit.t.app.get(ExecutionsController).beforeApplicationShutdown();
      await waitFor(() => (following.stderr().includes('reconnecting') ? true : undefined), 'the reconnection');
      goOn();
      expect(await following.done).toEqual({
        code: 0,
        stdout: 'first\nsecond\n',
        stderr: '[the output stream broke off; reconnecting]\n',
      });
    });

    it('events -f opens the stream again after the last event it printed', async () => {
      const following = startCli(entry, ['events', '-f', '--json'], followEnv());
      const printed = () =>
        following
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { seq: number; type: string; jobId: string });
      let made = 0;
      const makeJob = async () =>
        (
          (
            await api()
              .post('/jobs')
              .send({ name: `evented-${++made}`, command: 'true', cronExpression: '@yearly' })
          ).body as Body
        ).id as string;
      // the stream begins at the newest event when it opens: make jobs until one shows
      await waitFor(async () => {
        const id = await makeJob();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return printed().find((e) => e.jobId === id);
      }, 'a first event, live');
      await orbit.t.app.get(EventsController).beforeApplicationShutdown();
      await waitFor(() => (following.stderr().includes('reconnecting') ? true : undefined), 'the reconnection');
      const during = await makeJob(); // made while it reconnects: its event comes after the last one printed
      await waitFor(() => printed().find((e) => e.jobId === during), 'the event made while reconnecting');
      following.child.kill();
      await following.done;
      const seqs = printed().map((e) => e.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
      expect(following.stderr()).toBe('[the event stream broke off; reconnecting]\n');
    });
  });

  describe('output and errors', () => {
    it('--json prints the API’s JSON, which parses', async () => {
      const list = await cli(['jobs', 'list', '--json']);
      expect(list.code).toBe(0);
      const jobs = JSON.parse(list.stdout) as Body[];
      expect(jobs.map((job) => job.name).sort()).toEqual(Object.keys(await settings()).sort());
      const plan = JSON.parse(
        (await cli(['--json', 'apply', '-f', join(home, 'smaller.yaml'), '--dry-run'])).stdout,
      ) as Body;
      expect(plan).toMatchObject({
        dryRun: true,
        items: expect.arrayContaining([expect.objectContaining({ name: 'backup', action: 'unchanged' })]),
      });
      const get = JSON.parse((await cli(['jobs', 'get', 'backup', '--json'])).stdout) as Body;
      expect(get).toMatchObject({ name: 'backup', timezone: 'Europe/Berlin', maxRetries: 2 });
    });

    it('the human output is a table', async () => {
      const list = await cli(['jobs', 'list']);
      expect(list.stdout.split('\n')[0]).toMatch(
        /^name\s+cronExpression\s+timezone\s+enabled\s+nextRunAt\s+lastStatus/,
      );
      expect(list.stdout).toMatch(/\nbackup\s+0 3 \* \* \*\s+Europe\/Berlin\s+true/);
    });

    it('a wrong token prints the API’s message and exits non-zero', async () => {
      const result = await cli(['jobs', 'list'], { ORBIT_TOKEN: 'orbit_not-a-token' });
      const refusal = await request(orbit.t.app.getHttpServer())
        .get('/jobs')
        .set('Authorization', 'Bearer orbit_not-a-token');
      expect(refusal.status).toBe(401);
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `orbit: ${(refusal.body as { message: string }).message}\n`,
      });
    });

    it('login checks the token, stores it readable by the user alone, and the next commands use it', async () => {
      const config = join(home, 'login-config');
      const login = await cli(['login', '--token', TEST_ADMIN_TOKEN], { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '' });
      expect(login.code).toBe(0);
      expect(statSync(join(config, 'orbit/config.json')).mode & 0o777).toBe(0o600);
      const list = await cli(['jobs', 'list', '--json'], { XDG_CONFIG_HOME: config, ORBIT_TOKEN: '', ORBIT_URL: '' });
      expect(list.code).toBe(0);
      const refused = await cli(['login', '--token', 'orbit_wrong'], {
        XDG_CONFIG_HOME: join(home, 'other'),
        ORBIT_TOKEN: '',
      });
      expect(refused.code).toBe(1);
      expect(() => statSync(join(home, 'other/orbit/config.json'))).toThrow();
    });
  });
});
