/**
 * `npm run bench`: throughput and latency of a real worker process on a real PostgreSQL,
 * beside the machine's own limit measured in the same run. Prints a table and writes
 * bench/results/latest.json.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config/orbit-config.js';
import { migrate } from '../src/database/migrate.js';
import { startDatabase } from '../src/database/start-database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'dist/src/main.js');
const BURST = Number(process.env.BENCH_BURST ?? 2000);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 200);
const CONCURRENCIES = [1, 8, 32];

interface Row {
  measure: string;
  orbit: string;
  reference: string;
  ratio: string;
}

async function main(): Promise<void> {
  const dataDir = join(tmpdir(), `orbit-bench-${process.pid}`);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const database = await startDatabase(
    { ...loadConfig({ ORBIT_DATA_DIR: dataDir, ORBIT_PG_PORT: String(port) }, []) },
    (line) => console.error(line),
  );
  const db = new pg.Client({ connectionString: database.url });
  try {
    await migrate(database.url);
    await db.connect();
    const jobId = await createJob(db);
    const rows: Row[] = [];
    const figures: Record<string, unknown> = {};

    for (const concurrency of CONCURRENCIES) {
      const reference = spawnReference(BURST, concurrency);
      const rate = await burst(db, database.url, jobId, concurrency);
      figures[`burst_c${concurrency}`] = { orbitPerSecond: rate, bareNodePerSecond: reference };
      rows.push({
        measure: `burst of ${BURST} \`true\`, concurrency ${concurrency}`,
        orbit: `${rate.toFixed(0)}/s`,
        reference: `${reference.toFixed(0)}/s bare Node`,
        ratio: (rate / reference).toFixed(2),
      });
    }

    const latency = await idleLatency(db, database.url, jobId);
    figures.idleLatencyMs = latency;
    rows.push({
      measure: `queue → start, idle worker, ${LATENCY_RUNS} runs 20 ms apart`,
      orbit: `p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms`,
      reference: 'target p50 ≤ 5 ms, p99 ≤ 15 ms',
      ratio: '',
    });

    console.table(rows);
    const result = {
      at: new Date().toISOString(),
      cores: cpus().length,
      node: process.version,
      postgres: (await db.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version,
      figures,
    };
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify(result, null, 2));
    console.log(JSON.stringify(result));
  } finally {
    await db.end().catch(() => undefined);
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function createJob(db: pg.Client): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, created_at, updated_at)
     VALUES ($1, 'bench', 'true', '0 0 1 1 *', 'UTC', 0, 60, false, 'RUN_ONCE', 'ALLOW', now(), now())`,
    [id],
  );
  return id;
}

/** Queues `count` executions in one statement; returns their creation instant. */
async function enqueue(db: pg.Client, jobId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
     SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', clock_timestamp(), clock_timestamp()
     FROM generate_series(1, $2)`,
    [jobId, count],
  );
}

async function burst(db: pg.Client, url: string, jobId: string, concurrency: number): Promise<number> {
  const worker = await startWorker(url, concurrency);
  try {
    await db.query('DELETE FROM executions');
    const begin = Date.now();
    await enqueue(db, jobId, BURST);
    await until(db, `SELECT count(*)::int AS n FROM executions WHERE status = 'SUCCEEDED'`, BURST);
    const { rows } = await db.query<{ last: Date }>('SELECT max(finished_at) AS last FROM executions');
    return BURST / ((rows[0]!.last.getTime() - begin) / 1000);
  } finally {
    await stop(worker);
  }
}

async function idleLatency(db: pg.Client, url: string, jobId: string): Promise<{ p50: number; p99: number }> {
  const worker = await startWorker(url, 8);
  try {
    await db.query('DELETE FROM executions');
    for (let i = 0; i < LATENCY_RUNS; i++) {
      await enqueue(db, jobId, 1);
      await sleep(20);
    }
    await until(db, `SELECT count(*)::int AS n FROM executions WHERE started_at IS NOT NULL`, LATENCY_RUNS);
    const { rows } = await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM executions ORDER BY 1`,
    );
    const ms = rows.map((r) => Number(r.ms));
    return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
  } finally {
    await stop(worker);
  }
}

function startWorker(url: string, concurrency: number): Promise<ChildProcess> {
  const worker = spawn(process.execPath, [MAIN, 'worker'], {
    env: { ...process.env, DATABASE_URL: url, ORBIT_WORKER_CONCURRENCY: String(concurrency), ORBIT_WORK_DIR: tmpdir() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let log = '';
    const watch = (chunk: Buffer) => {
      log += chunk.toString();
      if (!log.includes('running')) return;
      worker.stdout.off('data', watch).resume();
      resolve(worker);
    };
    worker.stdout.on('data', watch);
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${log}`)));
  });
}

async function stop(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}

function spawnReference(total: number, concurrency: number): number {
  const out = execFileSync(process.execPath, [
    join(ROOT, 'bench/spawn-reference.mjs'),
    String(total),
    String(concurrency),
  ]);
  return (JSON.parse(out.toString()) as { perSecond: number }).perSecond;
}

async function until(db: pg.Client, sql: string, expected: number, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await db.query<{ n: number }>(sql)).rows[0]!.n < expected) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${sql}`);
    await sleep(20);
  }
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
