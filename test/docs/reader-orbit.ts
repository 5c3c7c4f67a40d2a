import { ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  accessSync,
  constants,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../support/wait.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIRST_TOKEN = /the first admin token \(shown once, store it now\): (\S+)/;

/**
 * A reader's checkout: the project's files (those git tracks or would add: no node_modules,
 * dist or .orbit), the installed packages linked in, and `npm run build` run in it. Its
 * `bin` holds what the docs' shell finds on its PATH before the system's: `orbit`, the CLI
 * of this build, and `curl`, which fails on an HTTP error status (see `readerShim`).
 */
export interface Checkout {
  dir: string;
  bin: string;
  /**
   * A checkout of one file's reader: a folder of its own whose entries link to the built
   * checkout's, so that what a reader writes there (`./.orbit/`, `orbit export -o orbit.yaml`)
   * stays in it, at no cost of copying.
   */
  copy(): string;
  remove(): void;
}

export async function buildCheckout(): Promise<Checkout> {
  const root = mkdtempSync(join(tmpdir(), 'orbit-docs-'));
  chmodSync(root, 0o755); // as root, Orbit's commands run as nobody, who must reach the work dir inside
  const dir = join(root, 'orbit');
  const { stdout } = await promisify(execFile)(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  for (const path of stdout.split('\0').filter(Boolean)) {
    try {
      cpSync(join(ROOT, path), join(dir, path));
    } catch (error) {
      // a file git knows that the worktree has deleted is not part of the checkout
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  await promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: dir, env: readerBase(join(root, 'home')) });
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeShim(bin, 'orbit', `exec '${process.execPath}' '${join(dir, 'dist/src/cli.js')}' "$@"`);
  writeShim(bin, 'curl', curlShim());
  let copies = 0;
  return {
    dir,
    bin,
    copy: () => {
      const copy = join(root, `reader-${++copies}`);
      mkdirSync(copy);
      for (const entry of readdirSync(dir)) symlinkSync(join(dir, entry), join(copy, entry));
      return copy;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A command that is answered 4xx or 5xx exits non-zero, as a failing command does (a reader
 * reads the error on the screen; the test needs the exit code): `--fail-with-body` unless the
 * command chose how to fail (`-f`, `--fail…`) or prints the status itself (`-w`).
 */
function curlShim(): string {
  const real = systemPath()
    .map((dir) => join(dir, 'curl'))
    .find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  if (!real) return `echo 'curl: not installed on this machine' >&2; exit 127`;
  return [
    'for arg; do',
    '  case $arg in',
    `    --fail*|--write-out|-w) exec '${real}' "$@" ;;`,
    '    --*) ;;',
    `    -*[fw]*) exec '${real}' "$@" ;;`,
    '  esac',
    'done',
    `exec '${real}' --fail-with-body "$@"`,
  ].join('\n');
}

function writeShim(bin: string, name: string, body: string): void {
  writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
}

/** The PATH of the machine, without the project's `node_modules/.bin` that npm scripts put first. */
function systemPath(): string[] {
  return (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules'));
}

/** What a reader's terminal has: the system's PATH, a home of their own, no colours. */
function readerBase(home: string, bin?: string): Record<string, string> {
  mkdirSync(home, { recursive: true });
  const kept = Object.fromEntries(
    ['USER', 'LOGNAME', 'TMPDIR'].flatMap((name) => {
      const value = process.env[name];
      return value ? [[name, value]] : [];
    }),
  );
  const path = [...(bin ? [bin] : []), ...systemPath()].join(delimiter);
  return { ...kept, PATH: path, HOME: home, LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1' };
}

export interface ReaderOrbit {
  url: string;
  /**
   * The shell a reader has once they followed the README's "Start": TOKEN (the token Orbit
   * printed at its first start), ORBIT_URL and ORBIT_TOKEN (the command line's), AUTH (the
   * header for curl), and DATABASE_URL, the database this Orbit uses, where a reader's
   * `orbit token …` would find the embedded one in ./.orbit.
   */
  env: Record<string, string>;
  /** Everything it printed so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * `npm start` of the checkout `dir` as the script runs it once built (`node dist/src/main.js`,
 * role `all`: the API, the scheduler and a worker) on its own port and on `databaseUrl`, with
 * no admin token set: the token is the one it prints at its first start.
 */
export async function startReaderOrbit(checkout: Checkout, dir: string, databaseUrl: string): Promise<ReaderOrbit> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const home = `${dir}-home`;
  const base = readerBase(home, checkout.bin);
  const child: ChildProcess = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: dir,
    env: { ...readerBase(home), DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  for (const stream of [child.stdout, child.stderr])
    stream?.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve(void (exited = true))));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exit, new Promise((resolve) => (timer = setTimeout(resolve, 20_000)))]);
    clearTimeout(timer);
    try {
      process.kill(-child.pid!, 'SIGKILL'); // what a stop that hung left behind
    } catch {
      // nothing is left
    }
  };
  try {
    const token = await waitFor(
      () => {
        if (exited) throw new Error(`Orbit exited before it listened:\n${printed}`);
        return /listening on/.test(printed) ? (FIRST_TOKEN.exec(printed)?.[1] ?? '') : undefined;
      },
      'Orbit to listen',
      60_000,
    );
    if (token === '') throw new Error(`Orbit listened without printing its first admin token:\n${printed}`);
    const env = {
      ...base,
      TOKEN: token,
      ORBIT_URL: url,
      ORBIT_TOKEN: token,
      AUTH: `Authorization: Bearer ${token}`,
      DATABASE_URL: databaseUrl,
    };
    return { url, env, log: () => printed, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
