import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventsController } from '../../../src/events/http/events.controller.js';
import { ExecutionsController } from '../../../src/executions/http/executions.controller.js';
import { finalExecution, waitFor } from '../../support/wait.js';
import type { Body, Harness, Orbit } from '../harness.js';

export function runsCases(h: Harness): void {
  /** A run of the job queued through the API; answers it. */
  const queue = async (job: Body, orbit: Orbit = h.orbit, body: Body = {}) =>
    (
      await h
        .api(orbit)
        .post(`/jobs/${String(job.id)}/executions`)
        .send(body)
        .expect(201)
    ).body as Body;
  const finished = (run: Body) => finalExecution((path) => h.api().get(path), String(run.id));

  /**
   * A run of a new job `name` that prints "first", waits for `goOn()`, then prints "second",
   * followed by `orbit logs -f` until its first line shows.
   */
  const followSlowRun = async (name: string) => {
    const marker = join(h.home, 'work', `go-on-${name}`);
    const command = `echo first; while [ ! -f '${marker}' ]; do sleep 0.1; done; echo second`;
    const run = await queue(await h.job({ name, command, cronExpression: '@yearly' }));
    const following = h.start(['logs', '-f', String(run.id)]);
    await waitFor(() => (following.stdout() === 'first\n' ? true : undefined), 'the first line, live');
    return { run, following, goOn: () => writeFileSync(marker, '') };
  };

  describe('run and logs', () => {
    let hello: string;

    it('run queues a run and says which', async () => {
      const job = await h.job({ name: 'hello', command: 'echo hello; echo oops >&2', cronExpression: '@yearly' });
      const result = await h.cli(['run', 'hello']);
      expect(result.code).toBe(0);
      hello = /^Queued run ([0-9a-f-]{36}) of 'hello'\n$/.exec(result.stdout)![1]!;
      expect(await finished({ id: hello })).toMatchObject({ jobId: job.id, status: 'SUCCEEDED' });
    });

    it('logs prints what the run printed, stdout to stdout and stderr to stderr', async () => {
      expect(await h.cli(['logs', hello])).toEqual({ code: 0, stdout: 'hello\n', stderr: 'oops\n' });
      const json = await h.cli(['logs', hello, '--json']);
      expect(JSON.parse(json.stdout)).toEqual({ stdout: 'hello\n', stderr: 'oops\n', truncated: false });
    });

    it('run --param gives the run its parameters, which the command sees', async () => {
      await h.job({
        name: 'greet',
        command: 'echo "hello $ORBIT_PARAM_WHO"',
        cronExpression: null,
        parameters: [{ name: 'WHO', required: true }],
      });
      const result = await h.cli(['run', 'greet', '--param', 'WHO=world', '--wait']);
      expect(result).toMatchObject({ code: 0, stdout: 'hello world\n' });
      const refused = await h.cli(['run', 'greet', '--param', 'nothing-to-assign']);
      expect(refused).toEqual({ code: 1, stdout: '', stderr: "orbit: 'nothing-to-assign' is not NAME=value\n" });
    });

    it('run --wait follows the output and exits with the exit code of the run', async () => {
      await h.job({ name: 'exits-3', command: 'echo about to fail; exit 3', cronExpression: '@yearly' });
      const result = await h.cli(['run', 'exits-3', '--wait']);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('about to fail\n');
      expect(result.stderr).toMatch(/Run [0-9a-f-]{36} FAILED \(exit code 3\)/);
    });

    it('run --wait follows a failed attempt into its retry, and exits with the last attempt’s code', async () => {
      const marker = join(h.home, 'work', 'tried-once');
      const command = `if [ -f '${marker}' ]; then echo second try; exit 0; fi; touch '${marker}'; echo first try; exit 4`;
      await h.job({ name: 'flaky', command, cronExpression: '@yearly', maxRetries: 2 });
      const result = await h.cli(['run', 'flaky', '--wait']);
      expect(result.stdout).toBe('first try\nsecond try\n');
      expect(result.stderr).toMatch(
        /Run ([0-9a-f-]{36}) FAILED \(exit code 4\): Command exited with code 4; attempt 2 is run ([0-9a-f-]{36}), due [0-9T:.-]+Z: following it\n/,
      );
      const [, first, second] = /Run (\S+) FAILED.*attempt 2 is run (\S+),/.exec(result.stderr)!;
      expect(result.stderr).toContain(`Run ${second} SUCCEEDED (exit code 0)\n`);
      expect(result.code).toBe(0);
      const retry = (await h.api().get(`/executions/${second}`).expect(200)).body as Body;
      expect(retry).toMatchObject({ retryOf: first, attempt: 2, status: 'SUCCEEDED' });
    });

    it('run --wait exits with the code of the last attempt when every attempt fails', async () => {
      await h.job({ name: 'always-5', command: 'exit 5', cronExpression: '@yearly', maxRetries: 1 });
      const result = await h.cli(['run', 'always-5', '--wait']);
      expect(result.code).toBe(5);
      expect(result.stderr.match(/FAILED \(exit code 5\)/g)).toHaveLength(2);
      expect(result.stderr).toMatch(
        /attempt 2 is run [0-9a-f-]{36}.*\nRun [0-9a-f-]{36} FAILED \(exit code 5\): Command exited with code 5\n$/,
      );
    });

    it('logs -f prints the lines as the command writes them, until the run ends', async () => {
      const { run, following, goOn } = await followSlowRun('slow');
      expect(
        (
          (
            await h
              .api()
              .get(`/executions/${String(run.id)}`)
              .expect(200)
          ).body as Body
        ).status,
      ).toBe('RUNNING');
      goOn();
      expect(await following.done).toEqual({ code: 0, stdout: 'first\nsecond\n', stderr: '' });
    });
  });

  describe('runs', () => {
    it('runs list shows each run by its short id, its job by name, under headers, with times a person reads', async () => {
      const result = await h.cli(['runs', 'list', '--job', 'exits-3']);
      expect(result.code).toBe(0);
      const [header, row, ...rest] = result.stdout.split('\n');
      expect(header).toMatch(/^RUN\s+JOB\s+STATUS\s+TRIGGER\s+ATTEMPT\s+CREATED\s+TOOK\s+EXIT$/);
      expect(row).toMatch(/^[0-9a-f]{8}\s+exits-3\s+FAILED\s+manual\s+1\s+\d+ (s|min) ago\s+[\d.]+ m?s\s+3$/);
      expect(rest).toEqual(['']);
    });

    it('runs list --status and --limit pick and bound the runs, newest first; --json is the API’s list', async () => {
      const failed = JSON.parse((await h.cli(['runs', 'list', '--status', 'FAILED', '--json'])).stdout) as Body[];
      expect(failed.map((run) => run.status)).toEqual(failed.map(() => 'FAILED'));
      expect(failed.length).toBeGreaterThanOrEqual(4); // exits-3, flaky's first try, always-5 twice
      const [newest] = ((await h.api().get('/executions?limit=1').expect(200)).body as { items: Body[] }).items;
      expect(JSON.parse((await h.cli(['runs', 'list', '--limit', '1', '--json'])).stdout)).toEqual([newest]);
      const table = await h.cli(['runs', 'list', '--limit', '2']);
      expect(table.stdout.trim().split('\n')).toHaveLength(3);
    });

    it('a run of a job deleted since shows the job as its short id', async () => {
      const job = await h.job({ name: 'short-lived', command: 'true', cronExpression: '@yearly' });
      await finished(await queue(job));
      expect((await h.cli(['jobs', 'delete', 'short-lived'])).stdout).toBe("Deleted job 'short-lived'\n");
      const result = await h.cli(['runs', 'list', '--limit', '1']);
      expect(result.stdout.split('\n')[1]).toContain(`${String(job.id).slice(0, 8)} (deleted)`);
    });

    it('runs get, logs and runs cancel take the short id the dashboard shows, or any unique start of the id', async () => {
      const job = await h.job({ name: 'queued-only', command: 'echo never', cronExpression: '@yearly' }, h.fresh);
      const run = await queue(job, h.fresh);
      const id = String(run.id);
      const viaFresh = { url: h.fresh.url };
      const get = await h.cli(['runs', 'get', id.slice(0, 8)], {}, viaFresh);
      expect(get.code).toBe(0);
      expect(get.stdout).toMatch(new RegExp(`^id\\s+${id}\\n`));
      expect(get.stdout).not.toMatch(/ +$/m);
      expect((await h.cli(['logs', id.slice(0, 13)], {}, viaFresh)).code).toBe(0);
      const cancel = await h.cli(['runs', 'cancel', id.slice(0, 6)], {}, viaFresh);
      expect(cancel).toEqual({ code: 0, stdout: `Run ${id} is CANCELLED\n`, stderr: '' });
      const cancelled = await h.cli(['runs', 'get', id], {}, viaFresh);
      expect(cancelled.stdout).toMatch(/^cancelledBy\s+'[^']+'$/m);
      const json = JSON.parse((await h.cli(['runs', 'get', id, '--json'], {}, viaFresh)).stdout) as Body;
      expect(json).toMatchObject({ id, status: 'CANCELLED' });
    });

    it('a prefix that begins several ids lists them; one that begins none, or is no id, says so', async () => {
      const job = await h.job({ name: 'twins', command: 'true', cronExpression: '@yearly' }, h.fresh);
      const ids = ['abcd0001-0000-4000-8000-000000000001', 'abcd0002-0000-4000-8000-000000000002'];
      for (const id of ids) {
        const run = await queue(job, h.fresh);
        await h.fresh.t.db.sql('UPDATE executions SET id = $1 WHERE id = $2', [id, run.id]);
      }
      const viaFresh = { url: h.fresh.url };
      const ambiguous = await h.cli(['runs', 'get', 'abcd'], {}, viaFresh);
      expect(ambiguous.code).toBe(1);
      expect(ambiguous.stderr).toMatch(
        /^orbit: The id prefix 'abcd' is ambiguous; it begins the ids of:\n {2}abcd0002-\S+ {2}QUEUED, created \S+\n {2}abcd0001-\S+ {2}QUEUED, created \S+\n$/,
      );
      expect((await h.cli(['runs', 'get', 'abcd0002'], {}, viaFresh)).stdout).toContain(ids[1]);
      expect(await h.cli(['logs', 'abce'], {}, viaFresh)).toEqual({
        code: 1,
        stdout: '',
        stderr: "orbit: There is no run whose id begins with 'abce'\n",
      });
      expect((await h.cli(['runs', 'cancel', 'abc'], {}, viaFresh)).stderr).toBe(
        "orbit: 'abc' is not a run's id, nor the start of one (at least 4 hex digits)\n",
      );
    });
  });

  describe('streams that break off', () => {
    it('logs -f opens the stream again and prints nothing twice', async () => {
      const { following, goOn } = await followSlowRun('slow-2');
      // what a node does as it stops: every stream it serves ends
      await h.orbit.t.app.get(ExecutionsController).beforeApplicationShutdown();
      await waitFor(() => (following.stderr().includes('reconnecting') ? true : undefined), 'the reconnection');
      goOn();
      expect(await following.done).toEqual({
        code: 0,
        stdout: 'first\nsecond\n',
        stderr: '[the output stream broke off; reconnecting]\n',
      });
    });

    it('events -f opens the stream again after the last event it printed', async () => {
      const following = h.start(['events', '-f', '--json']);
      const printed = () =>
        following
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { seq: number; type: string; jobId: string });
      let made = 0;
      const makeJob = async () =>
        (await h.job({ name: `evented-${++made}`, command: 'true', cronExpression: '@yearly' })).id as string;
      // the stream begins at the newest event when it opens: make jobs until one shows
      await waitFor(async () => {
        const id = await makeJob();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return printed().find((e) => e.jobId === id);
      }, 'a first event, live');
      await h.orbit.t.app.get(EventsController).beforeApplicationShutdown();
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
}
