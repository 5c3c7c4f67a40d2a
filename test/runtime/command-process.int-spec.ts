import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, waitFor } from '../support/wait.js';

// The process a command runs in, and what is kept of its output: the same assertions hold for
// the native launcher and for the Node spawner (this file runs once with each).

type Output = Schema<'ExecutionOutputResponse'>;

const asRoot = process.getuid?.() === 0;

/** Runs `command` once on the app and answers the execution and its output. */
async function runOnce(
  t: TestApp,
  command: string,
): Promise<{ execution: Schema<'ExecutionResponse'>; output: Output }> {
  const http = () => request(t.app.getHttpServer());
  const job = await createJob(t, { command });
  const { body: queued } = await http().post(`/jobs/${job.id}/executions`).expect(201);
  const execution = await finalExecution((path) => http().get(path), queued.id as string);
  const { body: output } = await http().get(`/executions/${queued.id}/output`).expect(200);
  return { execution, output: output as Output };
}

/**
 * The descriptors above 2 that this process (the worker) holds without close-on-exec: every
 * process it starts inherits them, whichever launcher (as after any fork and exec).
 */
function inheritedDescriptors(): number[] {
  return readdirSync('/proc/self/fdinfo')
    .map(Number)
    .filter((fd) => {
      if (fd <= 2) return false;
      try {
        const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
        return flags !== undefined && (parseInt(flags, 8) & 0o2000000) === 0;
      } catch {
        return false; // closed meanwhile (the directory's own descriptor)
      }
    });
}

/** The server's variables a command gets (docs/how-it-runs.md), besides those of its user. */
const FROM_THE_SERVER = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR'];
const OF_THE_USER = ['HOME', 'USER', 'LOGNAME'];

const pick = (names: string[]): Record<string, string> =>
  Object.fromEntries(names.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));

/** As root, commands run as nobody unless ORBIT_COMMAND_USER says root; then they run as Orbit does. */
describe.each<{ user: string; env: Record<string, string>; switched: boolean }>([
  { user: 'the default user', env: {}, switched: asRoot },
  { user: 'root (ORBIT_COMMAND_USER)', env: { ORBIT_COMMAND_USER: 'root' }, switched: false },
])('a command run as $user', ({ env, switched }) => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-command-process-${process.pid}-${env.ORBIT_COMMAND_USER ?? 'default'}`);

  beforeAll(async () => {
    process.env.ORBIT_TEST_SECRET = 'must-not-leak';
    t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: workDir, ...env } });
  });
  afterAll(async () => {
    delete process.env.ORBIT_TEST_SECRET;
    await t?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("starts in the work dir with exactly the environment Orbit gives it, and nothing of the launcher's", async () => {
    const { execution, output } = await runOnce(t, `pwd; echo; tr '\\0' '\\n' < /proc/$$/environ`);
    const [cwd, environment] = output.stdout.split('\n\n');
    expect(cwd).toBe(workDir);
    const variables = environment!.trimEnd().split('\n').sort();
    const user = switched ? { HOME: '/nonexistent', USER: 'nobody', LOGNAME: 'nobody' } : pick(OF_THE_USER);
    const expected = {
      ...pick(FROM_THE_SERVER),
      ...user,
      ORBIT_EXECUTION_ID: execution.id,
      ORBIT_JOB_ID: execution.jobId,
      ORBIT_ATTEMPT: '1',
    };
    expect(variables).toEqual(
      Object.entries(expected)
        .map(([name, value]) => `${name}=${value}`)
        .sort(),
    );
  });

  it('has stdin on /dev/null, its stdout and stderr, no other descriptor, and no signal blocked or ignored', async () => {
    // the shell reads its own signal state: while it waits for a command (grep) it blocks every signal
    const { output } = await runOnce(
      t,
      'ls /proc/$$/fd; echo; readlink /proc/$$/fd/0; ' +
        'while read -r line; do case $line in SigBlk:* | SigIgn:*) echo "$line" ;; esac; done < /proc/$$/status',
    );
    const [descriptors, rest] = output.stdout.split('\n\n');
    expect(
      descriptors!
        .split('\n')
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, ...inheritedDescriptors()]);
    expect(rest!.trimEnd().split('\n')).toEqual([
      '/dev/null',
      'SigBlk:\t0000000000000000',
      'SigIgn:\t0000000000000000',
    ]);
  });
});

describe('what is kept of the output (ORBIT_OUTPUT_LIMIT_KB=1)', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-command-output-${process.pid}`);
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: workDir, ORBIT_OUTPUT_LIMIT_KB: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('a character written in two parts arrives whole; while the command pauses between them it shows what came before', async () => {
    // é is \303\251, € \342\202\254: each split after its first byte, with a pause longer than an output report
    const job = await createJob(t, {
      command: `printf 'caf\\303'; printf '\\342' >&2; sleep 3; printf '\\251\\n'; printf '\\202\\254\\n' >&2`,
    });
    const { body: queued } = await http().post(`/jobs/${job.id}/executions`).expect(201);
    const live = await waitFor(async () => {
      const { body } = await http().get(`/executions/${queued.id}/output`);
      return body.stdout === '' ? undefined : (body as Output);
    }, 'the live output');
    expect(live).toEqual({ stdout: 'caf', stderr: '', truncated: false });

    await finalExecution((path) => http().get(path), queued.id as string);
    const { body: output } = await http().get(`/executions/${queued.id}/output`).expect(200);
    expect(output).toEqual({ stdout: 'café\n', stderr: '€\n', truncated: false });
  });

  it('a character cut at the start of the kept tail leaves one U+FFFD for each of its bytes that is kept', async () => {
    // 3 + 1022 bytes: the tail of 1024 begins with the last two bytes of €
    const { output } = await runOnce(t, `printf '\\342\\202\\254'; head -c 1022 /dev/zero | tr '\\0' a`);
    expect(output).toEqual({ stdout: `\uFFFD\uFFFD${'a'.repeat(1022)}`, stderr: '', truncated: true });
  });

  it('a tail that begins on a character boundary is whole: only the characters before it are dropped', async () => {
    const { output } = await runOnce(t, `for i in $(seq 1 600); do printf 'é'; done; printf '\\342\\202\\254' >&2`);
    expect(output).toEqual({ stdout: 'é'.repeat(512), stderr: '€', truncated: true });
  });
});
