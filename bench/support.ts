/**
 * What every scenario shares: the knobs, the run's context and report, real Orbit processes
 * started as children, the bare-Node reference, and small SQL and statistics helpers.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, copyFileSync, cpSync, existsSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type { LauncherKind } from '../src/config/orbit-config.js';
import type { CpuSample } from './cpu.js';
import type { WalPerExecution } from './wal.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPAWN_REFERENCE = join(ROOT, 'bench/spawn-reference.mjs');
const SHELL_SPAWN_REFERENCE = join(ROOT, 'bench/spawn-reference.sh');

export const SCENARIOS = [
  'burst',
  'latency',
  'peers',
  'schedule',
  'herd',
  'api',
  'footprint',
  'placement',
  'alerts',
  'dashboard',
  'growth',
  'pgtime',
  'upgrade',
  'retention',
  'soak',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The sizes of one run: the full ones by default, smaller through BENCH_* for a quick check. */
export interface Settings {
  only: ReadonlySet<Scenario>;
  burst: number;
  latencyRuns: number;
  scheduleSeconds: number;
  herdJobs: number;
  apiRows: number;
  apiSeconds: number;
  apiRounds: number;
  /** Pairs of c8 bursts, Orbit's and graphile-worker's in turns, behind the PostgreSQL CPU ratio. */
  pgRounds: number;
  footprintSeconds: number;
  dashboardJobs: number;
  dashboardRows: number;
  /** The growth scenario's largest table (it also measures at none, a tenth and a half of it). */
  growthRows: number;
  /** The finished runs kept by the installation the upgrade scenario migrates. */
  upgradeRows: number;
  /** How many runs the retention scenario's dropped day holds. */
  retentionRows: number;
  /** How long the soak scenario keeps a worker busy. */
  soakSeconds: number;
}

type Env = Record<string, string | undefined>;

export function readSettings(env: Env = process.env): Settings {
  const int = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
    return Number(raw);
  };
  const names = (env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_ONLY: unknown scenario(s) ${unknown.join(', ')}; choose from ${SCENARIOS.join(', ')}`);
  }
  return {
    only: new Set(names.length > 0 ? (names as Scenario[]) : SCENARIOS),
    burst: int('BENCH_BURST', 2000),
    latencyRuns: int('BENCH_LATENCY_RUNS', 200),
    scheduleSeconds: int('BENCH_SCHEDULE_SECONDS', 60),
    herdJobs: int('BENCH_HERD_JOBS', 10_000),
    apiRows: int('BENCH_API_ROWS', 1_000_000),
    apiSeconds: int('BENCH_API_SECONDS', 10),
    apiRounds: int('BENCH_API_ROUNDS', 2),
    pgRounds: int('BENCH_PG_ROUNDS', 3),
    footprintSeconds: int('BENCH_FOOTPRINT_SECONDS', 30),
    dashboardJobs: int('BENCH_DASHBOARD_JOBS', 10_000),
    dashboardRows: int('BENCH_DASHBOARD_ROWS', 1_000_000),
    growthRows: int('BENCH_GROWTH_ROWS', 5_000_000),
    upgradeRows: int('BENCH_UPGRADE_ROWS', 1_000_000),
    retentionRows: int('BENCH_RETENTION_ROWS', 1_000_000),
    soakSeconds: int('BENCH_SOAK_SECONDS', 600),
  };
}

/** `met`/`not met` against the target; `info` for figures that are reported only. */
export type Verdict = 'met' | 'not met' | 'info';

export interface Row {
  scenario: Scenario | 'run';
  measure: string;
  figure: string;
  target: string;
  ratio: string;
  verdict: Verdict;
}

export class Report {
  readonly rows: Row[] = [];
  readonly figures: Record<string, unknown> = {};

  add(row: Omit<Row, 'ratio'> & { ratio?: string }): void {
    this.rows.push({ ratio: '', ...row });
  }

  figure(key: string, value: unknown): void {
    this.figures[key] = value;
  }
}

export const verdict = (met: boolean): Verdict => (met ? 'met' : 'not met');

/** The middle value (the mean of the two middle ones when they are even in number). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One run: the database, the report, and what later scenarios need from earlier ones. */
export interface Bench {
  settings: Settings;
  /** The run's copy of dist/src/main.js (see snapshotBuild). */
  main: string;
  /** The run's copy of the native launcher (dist/native/orbit-launcher). */
  launcher: string;
  /** The run's scratch folder (removed after the run). */
  runDir: string;
  /** DATABASE_URL of the run's embedded PostgreSQL, as Orbit's role. */
  url: string;
  /** The same database as its superuser: the peers install their schemas with it, as a newcomer's superuser would. */
  adminUrl: string;
  db: pg.Client;
  /** Where the Orbit processes' logs go (bench/results/logs, kept after the run). */
  logDir: string;
  /** The commands' working directory (ORBIT_WORK_DIR), in the run's scratch folder. */
  workDir: string;
  report: Report;
  /** Executions created by all scenarios so far (for the whole-run table growth). */
  executionsRun: number;
  /** Worker processes started so far (each registers one row in `workers`). */
  workersStarted: number;
  /** Burst rates measured earlier in the run (per second), for the herd's drain and the peers; Orbit's with the native launcher. */
  burstRates: { orbitC8?: number; bareC8?: number };
  /** Orbit's c8 bursts earlier in the run, by launcher, for the peers beside them. */
  c8Bursts: Partial<Record<LauncherKind, C8Burst>>;
  /** Orbit's idle latency measured earlier in the run (ms), for the peers beside it. */
  idleLatencyMs?: { p50: number; p99: number };
}

/** What the peers compare with of Orbit's c8 burst. */
export interface C8Burst {
  perSecond: number;
  /** CPU ms per execution, by part (cpu.ts). */
  cpuMs: CpuSample;
  /** What PostgreSQL wrote per execution (wal.ts). */
  wal: WalPerExecution;
}

// ---------------------------------------------------------------------------------------------
// progress

const startedAt = Date.now();

/** A progress line on stderr, stamped with the seconds since the bench started. */
export function log(message: string): void {
  process.stderr.write(`[bench +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Orbit processes

const NATIVE_LAUNCHER = 'dist/native/orbit-launcher';

/**
 * Copies the build this run started with (dist/src, dist/migrations, dist/web and the native
 * launcher) into the run's folder and returns its main.js and launcher: every Orbit process of
 * the run then runs the same code, even when someone rebuilds dist/ while the bench runs.
 * node_modules is linked, package.json copied (ESM).
 */
export function snapshotBuild(runDir: string): { main: string; launcher: string } {
  if (!existsSync(join(ROOT, NATIVE_LAUNCHER))) {
    throw new Error(
      `no native launcher at ${NATIVE_LAUNCHER}: the bench measures Orbit with it, and it is built with the ` +
        'system C compiler by `node scripts/build-launcher.mjs` (which `npm run bench` runs first; it says why it could not)',
    );
  }
  const app = join(runDir, 'app');
  for (const dir of ['dist/src', 'dist/migrations', 'dist/web', 'dist/native'])
    cpSync(join(ROOT, dir), join(app, dir), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  return { main: join(app, 'dist/src/main.js'), launcher: join(app, NATIVE_LAUNCHER) };
}

export type Role = 'worker' | 'api';

export interface OrbitProcess {
  name: string;
  role: Role;
  pid: number;
  logFile: string;
  /** SIGTERM, then waits for the exit (SIGKILL after a minute); resolves to the exit code. */
  stop(): Promise<number | null>;
}

const live = new Set<OrbitProcess>();

/** Node flags for every Orbit process the bench starts, e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile them. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Warnings and errors each stopped Orbit process logged, by process name. */
export const logProblems: Record<string, ReturnType<typeof problemsIn>> = {};
/** How often each name was started in this run. */
const startsOf = new Map<string, number>();

/** Settings that would change what is measured if the caller's shell happened to export them. */
const STRIPPED_ENV = /^(ORBIT_|DATABASE_URL$|PORT$|HOST$|LOG_LEVEL$)/;

/**
 * Starts `node dist/src/main.js <role>` (the run's copy) against the run's database, its commands
 * started by the native launcher unless `env` sets ORBIT_LAUNCHER, its log (stdout and stderr)
 * in bench/results/logs/<name>.log, and resolves once it says it runs (worker) or listens (api). A name
 * started before in the run gets a log of its own (<name>-2.log, …): read in an earlier process's log,
 * the readiness line was found at once, and a growth step's burst measured the worker's start-up.
 */
export async function startOrbit(
  bench: Bench,
  role: Role,
  given: string,
  env: Record<string, string> = {},
): Promise<OrbitProcess> {
  const starts = (startsOf.get(given) ?? 0) + 1;
  startsOf.set(given, starts);
  const name = starts === 1 ? given : `${given}-${starts}`;
  const logFile = join(bench.logDir, `${name}.log`);
  const fd = openSync(logFile, 'wx');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !STRIPPED_ENV.test(key)));
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...NODE_ARGS, bench.main, role], {
      cwd: ROOT,
      env: { ...inherited, DATABASE_URL: bench.url, ORBIT_WORK_DIR: bench.workDir, ORBIT_LAUNCHER: 'native', ...env },
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name}: could not start node`);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolve(exitCode);
    }),
  );
  const process_: OrbitProcess = {
    name,
    role,
    pid,
    logFile,
    stop: async () => {
      live.delete(process_);
      if (exitCode === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          log(`${name} did not stop within a minute of SIGTERM: SIGKILL`);
          child.kill('SIGKILL');
        }, 60_000);
        await exited;
        clearTimeout(timer);
      }
      if (exitCode !== 0) log(`${name} exited with code ${exitCode}; its log: ${logFile}`);
      const problems = problemsIn(logFile);
      logProblems[name] = problems;
      if (problems.errors + problems.warnings > 0) {
        log(
          `${name} logged ${problems.errors} error(s) and ${problems.warnings} warning(s), e.g. ${problems.samples[0]}`,
        );
      }
      return exitCode ?? null;
    },
  };
  live.add(process_);
  if (role === 'worker') bench.workersStarted++;

  const ready = role === 'worker' ? 'Orbit (worker) running' : 'Orbit (api) listening on';
  const deadline = Date.now() + 120_000;
  while (!readLog(logFile).includes(ready)) {
    if (exitCode !== undefined) {
      live.delete(process_);
      throw new Error(`${name} exited (code ${exitCode}) before it was ready:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) {
      await process_.stop();
      throw new Error(`${name} was not ready within two minutes:\n${tail(logFile)}`);
    }
    await sleep(25);
  }
  return process_;
}

/** Stops every Orbit process still running (on an error or Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

function readLog(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** The last lines of a log, for an error message. */
export function tail(file: string, lines = 30): string {
  return readLog(file).trimEnd().split('\n').slice(-lines).join('\n');
}

/** Log lines at level warn (40) or above, as pino writes them (JSON lines). */
export function problemsIn(file: string): { warnings: number; errors: number; samples: string[] } {
  let warnings = 0;
  let errors = 0;
  const samples: string[] = [];
  for (const line of readLog(file).split('\n')) {
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (level === undefined || Number(level) < 40) continue;
    if (Number(level) >= 50) errors++;
    else warnings++;
    if (samples.length < 5) samples.push(line.slice(0, 400));
  }
  return { warnings, errors, samples };
}

// ---------------------------------------------------------------------------------------------
// the machine's own limit

const execFileAsync = promisify(execFile);

/** A process starting `/bin/sh -c true` over and over: its rate, and its CPU per command. */
export interface SpawnReference {
  perSecond: number;
  /** CPU ms per command: the starting process's own (`worker`) and the commands'. */
  cpuMs: { worker: number; commands: number };
}

/**
 * How many `/bin/sh -c true` a bare Node process completes per second at this concurrency, and at
 * what CPU cost; with `pipes`, started as Orbit's spawner starts them (own group, output piped).
 */
export async function bareNode(total: number, concurrency: number, pipes = false): Promise<SpawnReference> {
  const args = [SPAWN_REFERENCE, String(total), String(concurrency), ...(pipes ? ['pipes'] : [])];
  const { stdout } = await execFileAsync(process.execPath, args);
  return JSON.parse(stdout) as SpawnReference;
}

/** The same commands started by the system shell (a process of about a megabyte): what a fork costs there. */
export async function shellSpawn(total: number, concurrency: number): Promise<SpawnReference> {
  const begin = process.hrtime.bigint();
  const { stdout } = await execFileAsync('/bin/sh', [SHELL_SPAWN_REFERENCE, String(total), String(concurrency)]);
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  // `times`: the shell's user and system time, then its children's, each as 0m0.170000s
  const times = [...stdout.matchAll(/(\d+)m([\d.]+)s/g)].map(([, min, sec]) => (Number(min) * 60 + Number(sec)) * 1000);
  if (times.length !== 4) throw new Error(`unexpected output of the shell's times: ${stdout}`);
  const [user, system, childUser, childSystem] = times as [number, number, number, number];
  return {
    perSecond: total / seconds,
    cpuMs: { worker: (user + system) / total, commands: (childUser + childSystem) / total },
  };
}

export const bareNodeRate = async (total: number, concurrency: number): Promise<number> =>
  (await bareNode(total, concurrency)).perSecond;

// ---------------------------------------------------------------------------------------------
// SQL

/** A job row written directly (no scheduler involvement unless enabled with a next run). */
export async function createJob(
  db: pg.Client,
  name: string,
  options: { command?: string; cron?: string; enabled?: boolean; nextRunAt?: Date | null } = {},
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, next_run_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'UTC', 0, 60, $5, 'RUN_ONCE', 'ALLOW', $6, now(), now())`,
    [
      id,
      name,
      options.command ?? 'true',
      options.cron ?? '0 0 1 1 *',
      options.enabled ?? false,
      options.nextRunAt ?? null,
    ],
  );
  return id;
}

/** Queues `count` manual runs of the job's command in one statement, due now. */
export async function enqueue(db: pg.Client, jobId: string, count: number, command = 'true'): Promise<void> {
  await db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
     SELECT gen_random_uuid(), $1, $3, 0, 60, 'QUEUED', 1, 'MANUAL', clock_timestamp(), clock_timestamp()
     FROM generate_series(1, $2)`,
    [jobId, count, command],
  );
}

/** The bytes of `executions`: its partitions with their indexes (the partitioned table itself holds none). */
export const EXECUTIONS_BYTES = `(SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('executions'))`;

/** Removes every execution and its output (between scenarios, with no Orbit process running). */
export async function clearExecutions(db: pg.Client): Promise<void> {
  // its trigger empties the outputs and the run keys' ledgers
  await db.query('TRUNCATE executions');
}

/** Removes one job's executions (their outputs and events go with them), leaving every other row. */
export async function deleteExecutionsOf(db: pg.Client, jobId: string): Promise<void> {
  await db.query('DELETE FROM executions WHERE job_id = $1', [jobId]);
}

/** Removes the bench's jobs whose name starts with `prefix` (their executions must be gone). */
export async function deleteJobs(db: pg.Client, prefix: string): Promise<void> {
  await db.query(`DELETE FROM jobs WHERE name LIKE $1`, [`${prefix.replace(/[%_\\]/g, '\\$&')}%`]);
}

export async function scalar<T>(db: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  const { rows } = await db.query<{ value: T }>(sql, params);
  return rows[0]!.value;
}

/** Executions not yet final. */
export function unfinished(db: pg.Client): Promise<number> {
  return scalar<number>(db, `SELECT count(*)::int AS value FROM executions WHERE status IN ('QUEUED', 'RUNNING')`);
}

/** Waits until `done()` holds, checking every `everyMs`; throws after `timeoutMs`. */
export async function until(
  what: string,
  done: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Sizes and row counts of every table in the public schema. */
export interface TableSize {
  bytes: number;
  rows: number;
  deadRows: number;
}

export async function tableSizes(db: pg.Client): Promise<Record<string, TableSize>> {
  // a table partitioned by day counts as one, its days included (the partitions by status apart)
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
        AND NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_partitioned_table p ON p.partrelid = i.inhparent
                         WHERE i.inhrelid = c.oid AND p.partstrat = 'r')
      ORDER BY 1`,
  );
  const sizes: Record<string, TableSize> = {};
  for (const { name } of tables) {
    const ident = db.escapeIdentifier(name);
    const { rows } = await db.query<{ bytes: string; rows: number; dead: string | null }>(
      `SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree($1::regclass)) AS bytes,
              (SELECT count(*)::int FROM ${ident}) AS rows,
              (SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE relid IN (SELECT relid FROM pg_partition_tree($1::regclass))) AS dead`,
      [name],
    );
    sizes[name] = { bytes: Number(rows[0]!.bytes), rows: rows[0]!.rows, deadRows: Number(rows[0]!.dead ?? 0) };
  }
  return sizes;
}

// ---------------------------------------------------------------------------------------------
// numbers

export interface Distribution {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of a sample (in the sample's unit). */
export function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const sum = sorted.reduce((total, v) => total + v, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? NaN,
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.length > 0 ? sum / sorted.length : NaN,
  };
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const perSecond = (value: number): string => `${value.toFixed(0)}/s`;
export const ratio = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const address = server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        server.close(() => resolve(port));
      });
  });
}

/**
 * Runs `work` on a database of its own, `name`, made afresh on the bench's PostgreSQL and dropped
 * after (a scenario that migrates or drops partitions leaves the shared one as it was).
 */
export async function onOwnDatabase(bench: Bench, name: string, work: (url: string) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: bench.adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    await work(bench.adminUrl.replace(/\/[^/]*$/, `/${name}`));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
