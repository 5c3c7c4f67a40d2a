/**
 * `npm run bench`: every performance target of Orbit, measured in one run on a real PostgreSQL
 * (embedded, default settings, fsync on) with real `main.js worker|api` processes, each figure
 * beside its reference or target, and the Postgres job queues graphile-worker and pg-boss on the
 * same workloads and database (peers). Prints a table on stdout (progress on stderr) and writes
 * bench/results/latest.json.
 *
 *   BENCH_ONLY=burst,latency,peers,schedule,herd,api,footprint,placement,alerts,dashboard,growth,pgtime,upgrade,retention,soak   the scenarios to run (default: all)
 *   BENCH_BURST=2000  BENCH_LATENCY_RUNS=200  BENCH_SCHEDULE_SECONDS=60  BENCH_HERD_JOBS=10000
 *   BENCH_API_ROWS=1000000  BENCH_API_SECONDS=10  BENCH_API_ROUNDS=2  BENCH_PG_ROUNDS=3  BENCH_FOOTPRINT_SECONDS=30
 *   BENCH_DASHBOARD_JOBS=10000  BENCH_DASHBOARD_ROWS=1000000  BENCH_GROWTH_ROWS=5000000  BENCH_UPGRADE_ROWS=1000000  BENCH_RETENTION_ROWS=1000000  BENCH_SOAK_SECONDS=600   (the defaults)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config/orbit-config.js';
import { migrate } from '../src/postgres/migrate.js';
import { startDatabase } from '../src/postgres/start-database.js';
import { runAlerts } from './alerts.js';
import { runApi } from './api.js';
import { runBurst, runLatency } from './burst.js';
import { runDashboard } from './dashboard.js';
import { growth, reportGrowth, runFootprint } from './footprint.js';
import { runGrowth } from './growth.js';
import { runPeers } from './peers.js';
import { runPgTime } from './pg-time.js';
import { runSoak } from './soak.js';
import { runUpgrade } from './upgrade.js';
import { runRetention } from './retention.js';
import { formatTable, writeResults } from './report.js';
import { runHerd, runSchedule } from './schedule.js';
import { runPlacement } from './placement.js';
import {
  Bench,
  freePort,
  log,
  logProblems,
  readSettings,
  Report,
  ROOT,
  Scenario,
  SCENARIOS,
  snapshotBuild,
  stopAll,
  tableSizes,
} from './support.js';

const RUNNERS: Record<Scenario, (bench: Bench) => Promise<void>> = {
  burst: runBurst,
  latency: runLatency,
  peers: runPeers,
  schedule: runSchedule,
  herd: runHerd,
  api: runApi,
  footprint: runFootprint,
  placement: runPlacement,
  alerts: runAlerts,
  dashboard: runDashboard,
  growth: runGrowth,
  pgtime: runPgTime,
  upgrade: runUpgrade,
  retention: runRetention,
  soak: runSoak,
};

async function main(): Promise<void> {
  const settings = readSettings();
  const began = Date.now();
  const loadAtStart = loadavg();
  const runDir = join(tmpdir(), `orbit-bench-${process.pid}`);
  const logDir = join(ROOT, 'bench/results/logs');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const { main, launcher } = snapshotBuild(runDir);
  mkdirSync(join(runDir, 'work'), { recursive: true });
  const config = loadConfig({ ORBIT_DATA_DIR: join(runDir, 'data'), ORBIT_PG_PORT: String(await freePort()) }, []);
  const database = await startDatabase(config, (line) => log(line));
  // the bench's own probes need the superuser (session_replication_role); the Orbit nodes use database.url
  const db = new pg.Client({ connectionString: database.adminUrl, application_name: 'orbit-bench' });
  db.on('error', (error) => log(`the bench's database connection failed: ${error.message}`));
  process.once('SIGINT', () => {
    log('interrupted: stopping the Orbit processes and PostgreSQL');
    void stopAll()
      .then(() => database.stop())
      .finally(() => {
        rmSync(runDir, { recursive: true, force: true });
        process.exit(130);
      });
  });
  try {
    await migrate(database.url);
    await db.connect();
    const bench: Bench = {
      settings,
      main,
      launcher,
      runDir,
      url: database.url,
      adminUrl: database.adminUrl,
      db,
      logDir,
      workDir: join(runDir, 'work'),
      report: new Report(),
      executionsRun: 0,
      workersStarted: 0,
      burstRates: {},
      c8Bursts: {},
    };
    const environment = await describeEnvironment(db);
    log(
      `${environment.cores} cores, Node ${environment.node}, PostgreSQL ${environment.postgres}, ` +
        `Orbit ${environment.orbit.version} (${environment.orbit.commit}); scenarios: ${[...settings.only].join(', ')}`,
    );
    const startSizes = await tableSizes(db);
    const durations: Record<string, number> = {};
    const errors: Record<string, string> = {};
    for (const scenario of SCENARIOS) {
      if (!settings.only.has(scenario)) continue;
      log(`── ${scenario}`);
      const started = Date.now();
      try {
        await RUNNERS[scenario](bench);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`${scenario} FAILED: ${message}`);
        errors[scenario] = message;
        bench.report.add({
          scenario,
          measure: 'scenario',
          figure: `ERROR: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          target: 'runs to the end',
          verdict: 'not met',
        });
        await stopAll();
        process.exitCode = 1;
      }
      durations[scenario] = (Date.now() - started) / 1000;
      log(`── ${scenario} took ${durations[scenario].toFixed(0)} s`);
    }

    const endSizes = await tableSizes(db);
    const what =
      `the whole run (${bench.executionsRun} executions, ` +
      `${bench.workersStarted} worker process${bench.workersStarted === 1 ? '' : 'es'})`;
    if (bench.executionsRun > 0) reportGrowth(bench, 'run', what, startSizes, endSizes, bench.executionsRun);
    bench.report.figure('wholeRunTableGrowth', {
      executions: bench.executionsRun,
      workerProcesses: bench.workersStarted,
      tables: growth(startSizes, endSizes, bench.executionsRun),
      sizesAtEnd: endSizes,
    });

    const noisy = Object.entries(logProblems).filter(([, p]) => p.errors + p.warnings > 0);
    bench.report.add({
      scenario: 'run',
      measure: `Orbit process logs (${Object.keys(logProblems).length} processes): warnings and errors`,
      figure:
        noisy.length === 0
          ? 'none'
          : noisy.map(([name, p]) => `${name}: ${p.errors} errors, ${p.warnings} warnings`).join('; '),
      target: 'none (see bench/results/logs)',
      verdict: noisy.some(([, p]) => p.errors > 0) ? 'not met' : 'info',
    });
    bench.report.figure('logProblems', logProblems);
    const rows = bench.report.rows;
    const totalSeconds = (Date.now() - began) / 1000;
    const result = {
      at: new Date().toISOString(),
      ...environment,
      loadAverage: { start: loadAtStart, end: loadavg() },
      settings: { ...settings, only: [...settings.only] },
      durationSeconds: { total: totalSeconds, ...durations },
      summary: {
        met: rows.filter((r) => r.verdict === 'met').length,
        notMet: rows.filter((r) => r.verdict === 'not met').length,
        info: rows.filter((r) => r.verdict === 'info').length,
      },
      errors,
      rows,
      figures: bench.report.figures,
    };
    const file = writeResults(result);
    console.log(
      `\nOrbit ${environment.orbit.version} (${environment.orbit.commit}) · Node ${environment.node} · ` +
        `PostgreSQL ${environment.postgres} (fsync ${environment.postgresSettings.fsync}) · ` +
        `${environment.cores} cores · load ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}\n`,
    );
    console.log(formatTable(rows));
    console.log(
      `\n${result.summary.met} met, ${result.summary.notMet} not met, ${result.summary.info} reported only; ` +
        `${totalSeconds.toFixed(0)} s (${Object.entries(durations)
          .map(([name, s]) => `${name} ${s.toFixed(0)} s`)
          .join(', ')})`,
    );
    console.log(`JSON: ${file}; Orbit process logs: ${logDir}`);
  } finally {
    await stopAll();
    await db.end().catch(() => undefined);
    await database.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

async function describeEnvironment(db: pg.Client) {
  const setting = async (name: string) =>
    (await db.query<{ value: string }>(`SELECT current_setting($1) AS value`, [name])).rows[0]!.value;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  const commit = git('rev-parse', '--short', 'HEAD');
  const changed = git('status', '--porcelain', '--', 'src', 'migrations');
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    postgres: await setting('server_version'),
    postgresSettings: {
      fsync: await setting('fsync'),
      synchronous_commit: await setting('synchronous_commit'),
      full_page_writes: await setting('full_page_writes'),
      wal_sync_method: await setting('wal_sync_method'),
      shared_buffers: await setting('shared_buffers'),
      max_connections: await setting('max_connections'),
    },
    orbit: {
      version: pkg.version,
      commit: commit === null ? 'unknown' : `${commit}${changed ? '+uncommitted src changes' : ''}`,
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
