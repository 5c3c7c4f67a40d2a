import { ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The native launcher, driven through its protocol (src/runtime/infrastructure/launcher/PROTOCOL.md).
// Without a C compiler (see test/support/global-setup.ts) these are expected to fail, and a run
// that passes them is reported.
const launcherIt = process.env.ORBIT_TEST_NATIVE_LAUNCHER === 'missing' ? it.failing : it;

type Message = { type: string; id: string | null; [key: string]: unknown };

const SOURCE = join(process.cwd(), 'src/runtime/infrastructure/launcher');
let dir: string;
let binary: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'orbit-launcher-'));
  binary = join(dir, 'orbit-launcher');
  execFileSync('cc', [
    '-O2',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-o',
    binary,
    join(SOURCE, 'orbit-launcher.c'),
    join(SOURCE, 'json.c'),
    '-lm',
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Launcher {
  readonly process: ChildProcessWithoutNullStreams;
  readonly messages: (Message & { at: number })[] = [];
  private buffered = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor() {
    // a secret of the worker's own: no command may see it
    this.process = spawn(binary, [], { env: { ORBIT_SECRET: 'hush' }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (text: string) => {
      this.buffered += text;
      let newline;
      while ((newline = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        for (const message of JSON.parse(line) as Message[]) this.messages.push({ ...message, at: Date.now() });
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  write(text: string): void {
    this.process.stdin.write(text);
  }

  send(...messages: object[]): void {
    this.write(JSON.stringify(messages) + '\n');
  }

  run(id: string, command: string, options: Partial<Record<string, unknown>> = {}): void {
    this.send({
      type: 'run',
      id,
      command,
      cwd: dir,
      env: { ORBIT_EXECUTION_ID: id, MARK: marker(id) },
      timeoutMs: 10_000,
      killGraceMs: 500,
      outputLimitBytes: 1024,
      ...options,
    });
  }

  async next(type: string, id: string | null, timeoutMs = 10_000): Promise<Message & { at: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((message) => message.type === type && message.id === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} for ${id}: got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  async close(): Promise<void> {
    this.process.stdin.end();
    await this.exited;
  }
}

const testRun = `${process.pid}-${Date.now()}`;
const marker = (id: string) => `${testRun}-${id}`;

/** The live processes whose environment holds MARK=<marker of id>. */
function marked(id: string): number[] {
  const wanted = `MARK=${marker(id)}`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(wanted);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function noneLeft(id: string): Promise<number[]> {
  const deadline = Date.now() + 3000;
  let left = marked(id);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = marked(id);
  }
  return left;
}

// Switching users needs root; the suite runs as root (as CI does). Elsewhere this is expected to fail.
const rootIt = process.getuid?.() === 0 ? it : it.failing;

let launcher: Launcher;
beforeEach(() => {
  launcher = new Launcher();
});
afterEach(async () => {
  await launcher.close();
});

launcherIt('names itself orbit-launcher', async () => {
  launcher.run('name', 'true');
  await launcher.next('exit', 'name');
  expect(readFileSync(`/proc/${launcher.process.pid}/comm`, 'utf8')).toBe('orbit-launcher\n');
});

launcherIt(
  "reports a command's process group, output and exit code, in the environment it was given and no other",
  async () => {
    launcher.run('exit', 'echo out; echo err >&2; env | grep -c SECRET >&2; exit 7');
    const started = await launcher.next('started', 'exit');
    const exit = await launcher.next('exit', 'exit');
    expect(started.pgid).toEqual(expect.any(Number));
    expect(exit).toMatchObject({
      code: 7,
      signal: null,
      error: null,
      timedOut: false,
      killed: false,
      stdout: 'out\n',
      stderr: 'err\n0\n',
      truncated: false,
    });
  },
);

rootIt(
  "starts a command as the user it is given, in a session of its own, out of reach of the launcher's environment",
  async () => {
    launcher.run('user', 'id -u; id -g; id -G; ps -o sid=,pgid= -p $$; cat /proc/$PPID/environ', {
      uid: 65534,
      gid: 65534,
      env: { PATH: '/usr/bin:/bin' },
    });
    const { pgid } = await launcher.next('started', 'user');
    const exit = await launcher.next('exit', 'user');
    expect(exit).toMatchObject({ code: 1, stderr: expect.stringContaining('Permission denied') });
    expect((exit.stdout as string).split(/\s+/).filter(Boolean)).toEqual([
      '65534',
      '65534',
      '65534',
      `${pgid}`,
      `${pgid}`,
    ]);
  },
);

launcherIt('refuses a uid or gid that is not one', async () => {
  launcher.run('bad-user', 'true', { uid: -1, gid: 1.5 });
  expect(await launcher.next('error', 'bad-user')).toMatchObject({
    error: 'uid must be an integer from 0 to 4294967294; gid must be an integer from 0 to 4294967294',
  });
});

launcherIt('reports the signal that ended the shell', async () => {
  launcher.run('signal', 'kill -9 $$');
  expect(await launcher.next('exit', 'signal')).toMatchObject({ code: null, signal: 'SIGKILL' });
});

launcherIt(
  'reports output at most every 500 ms, keeps a bounded tail, and joins UTF-8 split across writes',
  async () => {
    launcher.run(
      'output',
      "for i in 1 2 3 4 5 6 7 8; do echo line$i; sleep 0.15; done; printf '\\342\\202'; sleep 0.1; printf '\\254'",
      {
        outputLimitBytes: 16,
      },
    );
    const exit = await launcher.next('exit', 'output');
    const outputs = launcher.messages.filter((message) => message.type === 'output' && message.id === 'output');
    expect(outputs.length).toBeGreaterThanOrEqual(1);
    const gaps = outputs.slice(1).map((output, i) => output.at - outputs[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(450);
    expect(exit).toMatchObject({ code: 0, stdout: '\nline7\nline8\n€', truncated: true });
  },
);

launcherIt('answers a command that cannot start with the error the Node spawner gives', async () => {
  launcher.run('nowhere', 'true', { cwd: join(dir, 'missing') });
  expect(await launcher.next('exit', 'nowhere')).toMatchObject({ code: null, error: 'spawn /bin/sh ENOENT' });
});

launcherIt('times a command out: SIGTERM to its group, SIGKILL after the grace', async () => {
  const sent = Date.now();
  launcher.run('timeout', "trap '' TERM; sleep 30", { timeoutMs: 300, killGraceMs: 400 });
  const exit = await launcher.next('exit', 'timeout');
  expect(exit).toMatchObject({ timedOut: true, killed: false, code: null, signal: 'SIGKILL' });
  expect(exit.at - sent).toBeGreaterThanOrEqual(650);
  expect(exit.at - sent).toBeLessThan(3000);
});

launcherIt('kills a command on request', async () => {
  launcher.run('kill', 'sleep 30');
  await launcher.next('started', 'kill');
  launcher.send({ type: 'kill', id: 'kill' });
  expect(await launcher.next('exit', 'kill')).toMatchObject({ killed: true, timedOut: false, signal: 'SIGTERM' });
});

const ESCAPES = `setsid sleep 60 & ( setsid sh -c 'sleep 60 & exit 0' & ) ; ( sleep 60 & ) ;`;

launcherIt('leaves no setsid or double-forked descendant alive after the run ends', async () => {
  launcher.run('escape', `${ESCAPES} exit 0`);
  expect(await launcher.next('exit', 'escape')).toMatchObject({ code: 0 });
  expect(await noneLeft('escape')).toEqual([]);
});

launcherIt('leaves none after a timeout or a kill either', async () => {
  launcher.run('escape-timeout', `${ESCAPES} sleep 30`, { timeoutMs: 300 });
  launcher.run('escape-kill', `${ESCAPES} sleep 30`);
  await launcher.next('started', 'escape-kill');
  await new Promise((resolve) => setTimeout(resolve, 200));
  launcher.send({ type: 'kill', id: 'escape-kill' });
  expect(await launcher.next('exit', 'escape-timeout')).toMatchObject({ timedOut: true });
  expect(await launcher.next('exit', 'escape-kill')).toMatchObject({ killed: true });
  expect(await noneLeft('escape-timeout')).toEqual([]);
  expect(await noneLeft('escape-kill')).toEqual([]);
});

launcherIt('answers garbage, half and oversized messages with errors and carries on', async () => {
  launcher.write('garbage\n');
  launcher.write('[{"type":"run","id":"half","comm\n');
  launcher.write(`[{"type":"run","id":"big","command":"${'x'.repeat(9 * 1024 * 1024)}"}]\n`);
  launcher.send({ type: 'dance', id: 'dance' }, { type: 'run', id: 'incomplete', timeoutMs: 'soon' });
  launcher.send({ type: 'run', id: 'fields' });
  launcher.write('[{"type":"run","id":"after"');
  launcher.write(
    `,"command":"echo still here","cwd":"${dir}","env":{},"timeoutMs":1000,"killGraceMs":100,"outputLimitBytes":100}]\n`,
  );

  expect(await launcher.next('exit', 'after')).toMatchObject({ code: 0, stdout: 'still here\n' });
  const errors = launcher.messages.filter((message) => message.type === 'error');
  expect(errors.map(({ id, error }) => ({ id, error }))).toEqual([
    { id: null, error: 'malformed message: expected a JSON array of requests' },
    { id: 'half', error: expect.stringContaining('malformed message') },
    { id: null, error: 'message too long (over 8 MiB): discarded' },
    { id: 'dance', error: 'unknown type (expected run or kill)' },
    { id: 'incomplete', error: expect.stringContaining('expected a number') },
    {
      id: 'fields',
      error:
        'command is required; cwd is required; timeoutMs must be a number >= 0; killGraceMs must be a number >= 0; ' +
        'outputLimitBytes must be a number from 1 to 1 GiB',
    },
  ]);
});

launcherIt('kills every command and every adopted descendant when its stdin closes, and exits', async () => {
  launcher.run('orphaned', `${ESCAPES} sleep 60`);
  await launcher.next('started', 'orphaned');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(marked('orphaned').length).toBeGreaterThanOrEqual(4);
  launcher.process.stdin.end();
  expect(await launcher.exited).toBe(0);
  expect(await noneLeft('orphaned')).toEqual([]);
});
