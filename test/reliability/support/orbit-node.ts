import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LauncherKind } from '../../../src/config/orbit-config.js';
import { childrenOf, processEntry, waitFor } from './util.js';

export type Role = 'all' | 'api' | 'worker';

/** The built binary, as a user starts it (`npm run build` first). */
export const MAIN = join(fileURLToPath(new URL('../../..', import.meta.url)), 'dist/src/main.js');

export interface LogLine {
  /** When the harness read the line (Date.now()). */
  at: number;
  text: string;
}

export interface NodeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** Each launcher's process name (/proc/<pid>/comm), which is not `node`. */
export const LAUNCHER_NAMES: Record<LauncherKind, string> = { native: 'orbit-launcher', node: 'orbit-spawner' };

const KEPT_LINES = 20_000;
// eslint-disable-next-line no-control-regex -- ANSI colour codes, in case a logger adds them
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * One Orbit process (`node dist/src/main.js <role>`) with its log kept in memory. Ready when it
 * logs `listening on` (api, all) or `running` (worker).
 */
export class OrbitNode {
  readonly lines: LogLine[] = [];
  /** The worker id it announced (`Worker <id> started`), for roles with a worker. */
  workerId: string | undefined;
  exit: NodeExit | undefined;
  readonly exited: Promise<NodeExit>;
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    readonly role: Role,
    readonly port: number | undefined,
    env: Record<string, string>,
  ) {
    this.child = spawn(process.execPath, [MAIN, role], {
      env: { ...process.env, ...env, ...(port === undefined ? {} : { PORT: String(port) }), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // a process group of its own, as a supervisor or a shell's job control gives it
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        this.record(`[harness] exited with code ${code}, signal ${signal}`);
        resolve(this.exit);
      });
    });
    this.child.once('error', (error) => this.record(`[harness] could not start: ${error.message}`));
    for (const stream of [this.child.stdout, this.child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const part of parts) this.record(part);
      });
      stream?.on('end', () => partial && this.record(partial));
    }
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`node ${this.name} has no pid`);
    return this.child.pid;
  }

  get url(): string {
    if (this.port === undefined) throw new Error(`node ${this.name} (${this.role}) serves no HTTP`);
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Resolves once the node said it is ready; fails (with its log) if it exits first. */
  async ready(timeoutMs = 120_000): Promise<this> {
    const pattern = /Orbit \((all|api|worker)\) (listening on|running)/;
    await waitFor(
      () => {
        if (this.exit) throw new Error(`node ${this.name} exited before it was ready:\n${this.tail(40)}`);
        return this.find(pattern) ? true : undefined;
      },
      `node ${this.name} (${this.role}) to be ready`,
      timeoutMs,
      50,
    );
    if (this.role !== 'api') {
      await waitFor(() => this.workerId, `node ${this.name} to announce its worker id`, 10_000, 50);
    }
    return this;
  }

  /** The launcher its worker said it starts commands through. */
  get launcher(): LauncherKind | undefined {
    const said = this.find(/Commands start through the (native launcher|Node spawner)/);
    return said && (said.text.includes('native launcher') ? 'native' : 'node');
  }

  /** The pid of its launcher (its child of that name), once one started. */
  launcherPid(): number | undefined {
    const kind = this.launcher;
    return kind && childrenOf(this.pid).find((pid) => processEntry(pid)?.comm === LAUNCHER_NAMES[kind]);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.alive) this.child.kill(signal);
  }

  /** The signal to the node's whole process group (what `kill -9 -<pgid>` or a supervisor sends). */
  signalGroup(signal: NodeJS.Signals): void {
    if (this.alive) process.kill(-this.pid, signal);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 30_000): Promise<NodeExit> {
    if (this.exit) return this.exit;
    this.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      this.exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), graceMs))),
    ]);
    clearTimeout(timer);
    if (exit) return exit;
    this.record(`[harness] still running ${graceMs} ms after SIGTERM: SIGKILL`);
    this.signal('SIGKILL');
    return this.exited;
  }

  /** The first log line matching `pattern`, optionally only those read at or after `since`. */
  find(pattern: RegExp, since = 0): LogLine | undefined {
    return this.lines.find((line) => line.at >= since && pattern.test(line.text));
  }

  count(pattern: RegExp): number {
    return this.lines.filter((line) => pattern.test(line.text)).length;
  }

  tail(count = 80): string {
    return this.lines
      .slice(-count)
      .map((line) => `  ${new Date(line.at).toISOString().slice(11, 23)} ${line.text}`)
      .join('\n');
  }

  private record(raw: string): void {
    const { text, workerId } = readLine(raw.replace(ANSI, ''));
    this.lines.push({ at: Date.now(), text });
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
    if (workerId !== undefined) this.workerId = workerId;
  }
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const QUIET_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'context', 'msg']);

/**
 * A log line as text, whether the node writes plain lines (`Worker <id> started`) or JSON
 * lines (`{"level":30,"context":"WorkerService","workerId":"…","msg":"Worker started …"}`):
 * JSON becomes `INFO [context] msg {other fields}`. Also the worker id, if the line announces it.
 */
function readLine(raw: string): { text: string; workerId?: string } {
  let parsed: unknown;
  try {
    parsed = raw.startsWith('{') ? JSON.parse(raw) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || !('msg' in parsed)) {
    return { text: raw, workerId: /Worker (\S+) started/.exec(raw)?.[1] };
  }
  const fields = parsed as Record<string, unknown>;
  const extra = Object.fromEntries(Object.entries(fields).filter(([key]) => !QUIET_FIELDS.has(key)));
  const level = LEVELS[Number(fields.level)] ?? String(fields.level);
  const context = typeof fields.context === 'string' ? ` [${fields.context}]` : '';
  const more = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : '';
  const msg = String(fields.msg);
  const text = `${level}${context} ${msg}${more}`;
  const announced = /Worker (\S+ )?started/.test(msg);
  const workerId =
    announced && typeof fields.workerId === 'string' ? fields.workerId : /Worker (\S+) started/.exec(msg)?.[1];
  return { text, workerId };
}
