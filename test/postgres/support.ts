import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from '../support/wait.js';
import { compileInto, ROOT } from '../support/compile.js';

/**
 * Orbit compiled as `npm run build` does (tsconfig.build.json), with the dashboard the global
 * setup built: the tests run what `npm start` and the `orbit` bin run (`<build>/src/main.js`,
 * `<build>/src/cli.js`), as child processes.
 */
export async function buildOrbit(): Promise<string> {
  const out = await compileInto('tsconfig.build.json', 'orbit-build-');
  copyFileSync(join(ROOT, 'package.json'), join(out, 'package.json'));
  symlinkSync(join(ROOT, 'dist/web'), join(out, 'web'));
  return out;
}

/**
 * A path for a data folder that does not exist yet, in a folder that PostgreSQL (run as user
 * postgres when the tests run as root) can enter.
 */
export function dataFolderPath(label: string): string {
  const parent = mkdtempSync(join(tmpdir(), `orbit-${label}-`));
  chmodSync(parent, 0o755);
  return join(parent, 'data');
}

/**
 * For a describe block: a build of Orbit (`build()`, made before its tests) and data folders
 * (`dataFolder(label)`), all removed after them.
 */
export function useBuildAndDataFolders(): { build: () => string; dataFolder: (label: string) => string } {
  let build = '';
  const folders: string[] = [];
  beforeAll(async () => {
    build = await buildOrbit();
  }, 180_000);
  afterAll(() => {
    for (const folder of [build, ...folders]) if (folder) rmSync(folder, { recursive: true, force: true });
  });
  return {
    build: () => build,
    dataFolder: (label) => {
      const path = dataFolderPath(label);
      folders.push(dirname(path));
      return path;
    },
  };
}

/** The environment of a child process: only what it is given, so nothing of the test run leaks in. */
export const childEnv = (env: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: tmpdir(),
  NO_COLOR: '1',
  ...env,
});

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** How long it ran. */
  ms: number;
}

/** `orbit <args>` from a build, as a child process, to its end. */
export function orbitCli(build: string, args: readonly string[], env: Record<string, string>): Promise<ProcessResult> {
  const began = Date.now();
  const child = spawn(process.execPath, [join(build, 'src/cli.js'), ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - began }));
  });
}

/** A running `node <build>/src/main.js` (what `npm start` runs), with its log in memory. */
export class OrbitServer {
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    }
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts one on a free port and waits until it listens. */
  static async start(build: string, env: Record<string, string>): Promise<OrbitServer> {
    const port = await freePort();
    const child = spawn(process.execPath, [join(build, 'src/main.js')], {
      env: childEnv({ PORT: String(port), ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new OrbitServer(child, `http://127.0.0.1:${port}`);
    let gone = false;
    void server.exited.then(() => (gone = true));
    await waitFor(
      () => {
        if (gone) throw new Error(`Orbit exited before it listened:\n${server.log()}`);
        return server.log().includes('listening on') ? true : undefined;
      },
      'Orbit to listen',
      120_000,
      100,
    );
    return server;
  }

  log(): string {
    return this.output;
  }

  /** As Ctrl-C does; SIGKILL if it has not ended 30 s later. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  async api(path: string, token: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${this.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }
}

/** The live processes whose command line names `text` (a data folder): `<pid> <command line>`. */
export function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (args.includes(text)) found.push(`${pid} ${args}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The port of the PostgreSQL that runs on a data folder, from its postmaster.pid. */
export function postgresPort(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]);
}

/** The data folder's passwords (postgres-passwords.json). */
export function passwordsOf(dataDir: string): { postgres: string; orbit: string } {
  return JSON.parse(readFileSync(join(dataDir, 'postgres-passwords.json'), 'utf8')) as {
    postgres: string;
    orbit: string;
  };
}

/** Runs `work` on one connection to the data folder's PostgreSQL as `user`. */
export async function withConnection<T>(
  port: number,
  user: string,
  password: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE PostgreSQL answers a sign-in with (28P01: wrong password), or 'accepted'. */
export async function signInResult(port: number, user: string, password: string): Promise<string> {
  try {
    return await withConnection(port, user, password, () => Promise.resolve('accepted'));
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return code ?? message;
  }
}
