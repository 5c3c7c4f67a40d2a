/**
 * Targets 1 and 2: how fast real worker processes drain a burst of `true`, beside a bare Node
 * process spawning the same commands in the same run, with the native launcher and, at
 * concurrency 8, with the Node spawner too; and how soon an idle worker starts a manual run.
 */
import type { LauncherKind } from '../src/config/orbit-config.js';
import { combined, CpuSample, describeCpu, perExecution, postgresTree, workerTree } from './cpu.js';
import { reportSpawnCost } from './spawn-cost.js';
import { describeWal, walPosition, walSince, WalPerExecution } from './wal.js';
import {
  bareNode,
  Bench,
  C8Burst,
  clearExecutions,
  createJob,
  deleteJobs,
  Distribution,
  distribution,
  enqueue,
  scalar,
  log,
  ms,
  perSecond,
  ratio,
  sleep,
  startOrbit,
  unfinished,
  until,
  verdict,
} from './support.js';

/** The Orbit rate with the native launcher at these concurrencies is at least this share of bare Node's. */
const BURST_TARGET_RATIO: Record<string, number> = { burst_c8: 0.75, burst_c32: 0.9 };

export interface BurstResult {
  perSecond: number;
  seconds: number;
  succeeded: number;
  failed: number;
  /** CPU ms per execution: the worker processes, their launchers, PostgreSQL, the commands. */
  cpuMs: CpuSample;
  /** What PostgreSQL wrote per execution, its queueing included (wal.ts). */
  wal: WalPerExecution;
}

/** What the table calls each launcher. */
export const LAUNCHER_NAMES: Record<LauncherKind, string> = { native: 'native launcher', node: 'Node spawner' };

interface Variant {
  label: string;
  key: string;
  /** One entry per worker process: its ORBIT_WORKER_CONCURRENCY. */
  workers: number[];
  /** The bare-Node concurrency it is compared with (the sum of the workers'). */
  reference: number;
  /** The launchers its workers run with, one burst each, beside the same bare-Node reference. */
  launchers: LauncherKind[];
}

const VARIANTS: Variant[] = [
  { label: '1 worker, concurrency 1', key: 'burst_c1', workers: [1], reference: 1, launchers: ['native'] },
  { label: '1 worker, concurrency 8', key: 'burst_c8', workers: [8], reference: 8, launchers: ['native', 'node'] },
  { label: '1 worker, concurrency 32', key: 'burst_c32', workers: [32], reference: 32, launchers: ['native'] },
  {
    label: '2 workers, concurrency 8 each',
    key: 'burst_2x_c8',
    workers: [8, 8],
    reference: 16,
    launchers: ['native'],
  },
];

const PREFIX = 'bench-burst';

export async function runBurst(bench: Bench): Promise<void> {
  const { burst } = bench.settings;
  await clearExecutions(bench.db);
  const jobId = await createJob(bench.db, PREFIX);
  try {
    for (const variant of VARIANTS) {
      log(`burst: bare Node, ${burst} × /bin/sh -c true at concurrency ${variant.reference}`);
      const bare = await bareNode(burst, variant.reference);
      const reference = bare.perSecond;
      log(`burst: bare Node ${perSecond(reference)}`);
      const results: Partial<Record<LauncherKind, C8Burst>> = {};
      for (const launcher of variant.launchers) {
        const name = LAUNCHER_NAMES[launcher];
        log(`burst: Orbit, ${variant.label}, ${name}`);
        const result = await burstOnce(bench, jobId, variant.workers, { launcher });
        results[launcher] = result;
        log(`burst: Orbit ${perSecond(result.perSecond)} (${result.seconds.toFixed(1)} s, ${result.failed} failed)`);
        log(`burst: CPU per execution, Orbit ${describeCpu(result.cpuMs)}; ${describeWal(result.wal)}`);
        const share = result.perSecond / reference;
        // the targets are the native launcher's; the Node spawner's figures are reported beside them
        const target = launcher === 'native' ? BURST_TARGET_RATIO[variant.key] : undefined;
        bench.report.figure(launcher === 'native' ? variant.key : `${variant.key}_${launcher}`, {
          launcher,
          workers: variant.workers,
          executions: burst,
          orbitPerSecond: result.perSecond,
          orbitSeconds: result.seconds,
          succeeded: result.succeeded,
          failed: result.failed,
          bareNodePerSecond: reference,
          bareNodeConcurrency: variant.reference,
          cpuMsPerExecution: { orbit: result.cpuMs, bareNode: bare.cpuMs },
          walPerExecution: result.wal,
          ratio: share,
          ...(target ? { target: `>= ${target}`, met: share >= target } : {}),
        });
        bench.report.add({
          scenario: 'burst',
          measure: `${burst} × \`true\`, ${variant.label}, ${name}`,
          figure: perSecond(result.perSecond) + (result.failed > 0 ? ` (${result.failed} FAILED)` : ''),
          target: target
            ? `≥ ${target} × bare Node c${variant.reference} (${perSecond(reference)})`
            : `report; bare Node c${variant.reference} ${perSecond(reference)}`,
          ratio: ratio(share),
          verdict: target ? verdict(share >= target && result.failed === 0) : 'info',
        });
        bench.report.add({
          scenario: 'burst',
          measure: `… CPU per execution, ${variant.label}, ${name}`,
          figure: `${describeCpu(result.cpuMs)}; ${describeWal(result.wal)}`,
          target: `report; bare Node c${variant.reference}: node ${bare.cpuMs.worker.toFixed(2)} ms (commands ${bare.cpuMs.commands.toFixed(2)} ms)`,
          verdict: 'info',
        });
      }
      if (variant.key === 'burst_c8') {
        bench.burstRates = { orbitC8: results.native!.perSecond, bareC8: reference };
        bench.c8Bursts = results;
        await reportSpawnCost(bench, { native: results.native!, node: results.node! }, bare, variant.reference);
      }
    }
  } finally {
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}

/**
 * Starts the workers (with the native launcher unless `launcher` says otherwise), queues the
 * burst of the job in one statement, and times it until the last one finished; `clear` removes
 * the burst's rows after it (all executions, unless rows that are not the bench's own must stay,
 * as the growth scenario's seeded history).
 */
export async function burstOnce(
  bench: Bench,
  jobId: string,
  concurrencies: number[],
  {
    launcher = 'native',
    clear = () => clearExecutions(bench.db),
  }: { launcher?: LauncherKind; clear?: () => Promise<void> } = {},
): Promise<BurstResult> {
  const { burst } = bench.settings;
  const workers = await Promise.all(
    concurrencies.map((concurrency, i) =>
      startOrbit(bench, 'worker', `burst-c${concurrency}-${concurrencies.length}w-${i + 1}-${launcher}`, {
        ORBIT_WORKER_CONCURRENCY: String(concurrency),
        ORBIT_LAUNCHER: launcher,
      }),
    ),
  );
  try {
    await sleep(500); // let the workers' first claim passes and LISTENs settle
    const cpu = combined(await postgresTree(bench.db), ...workers.map((worker) => workerTree(worker.pid)));
    const cpuBefore = cpu();
    const walFrom = await walPosition(bench.db);
    const begin = Date.now();
    await enqueue(bench.db, jobId, burst);
    bench.executionsRun += burst;
    await until('the burst to finish', async () => (await unfinished(bench.db)) === 0, 60_000 + burst * 200);
    const cpuMs = perExecution(cpuBefore, cpu(), burst);
    const wal = await walSince(bench.db, walFrom, burst);
    const { rows } = await bench.db.query<{ last: Date; succeeded: number; failed: number }>(
      `SELECT max(finished_at) AS last, count(*) FILTER (WHERE status = 'SUCCEEDED')::int AS succeeded,
              count(*) FILTER (WHERE status <> 'SUCCEEDED')::int AS failed
         FROM executions WHERE job_id = $1`,
      [jobId],
    );
    const seconds = (rows[0]!.last.getTime() - begin) / 1000;
    return {
      perSecond: burst / seconds,
      seconds,
      succeeded: rows[0]!.succeeded,
      failed: rows[0]!.failed,
      cpuMs,
      wal,
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await clear();
  }
}

const LATENCY_P50_MS = 5;
const LATENCY_P99_MS = 15;
/** Target 2's workload, which the peers (peers.ts) run too. */
export const LATENCY_SPACING_MS = 20;
export const LATENCY_WARM_UP_RUNS = 50;

/** Target 2: manual runs queued 20 ms apart on an idle worker; queue (created_at) → started_at. */
export async function runLatency(bench: Bench): Promise<void> {
  const runs = bench.settings.latencyRuns;
  await clearExecutions(bench.db);
  const jobId = await createJob(bench.db, 'bench-latency');
  try {
    const { latency, backlog, cold: coldLatency } = await measureLatency(bench, jobId);
    bench.idleLatencyMs = { p50: latency.p50, p99: latency.p99 };
    bench.report.figure('idleLatencyMs', {
      runs,
      spacingMs: LATENCY_SPACING_MS,
      ...latency,
      unfinishedAhead: backlog,
      firstRunsAfterStart: { runs: LATENCY_WARM_UP_RUNS, ...coldLatency },
    });
    bench.report.add({
      scenario: 'latency',
      measure: `queue → startedAt p50, idle worker, ${runs} runs ${LATENCY_SPACING_MS} ms apart`,
      figure: ms(latency.p50),
      target: `≤ ${LATENCY_P50_MS} ms`,
      verdict: verdict(latency.p50 <= LATENCY_P50_MS),
    });
    bench.report.add({
      scenario: 'latency',
      measure: `queue → startedAt p99 (max ${ms(latency.max)}; earlier runs unfinished at queueing: p50 ${backlog.p50}, max ${backlog.max})`,
      figure: ms(latency.p99),
      target: `≤ ${LATENCY_P99_MS} ms`,
      verdict: verdict(latency.p99 <= LATENCY_P99_MS),
    });
    bench.report.add({
      scenario: 'latency',
      measure: `… the worker's first ${LATENCY_WARM_UP_RUNS} runs after its start, before those (not counted above)`,
      figure: `p50 ${ms(coldLatency.p50)}, p99 ${ms(coldLatency.p99)}, max ${ms(coldLatency.max)}`,
      target: 'cold start',
      ratio: '',
      verdict: 'info',
    });
  } finally {
    await deleteJobs(bench.db, 'bench-latency');
  }
}

export interface LatencyResult {
  /** queue → startedAt, ms, of the measured runs on the idle, warmed worker. */
  latency: Distribution;
  /** How many earlier runs were still unfinished when each was queued. */
  backlog: Distribution;
  /** The worker's first runs after its start (measured apart). */
  cold: Distribution;
}

/**
 * A worker at concurrency 8, its warm-up runs, then the measured runs of the job, 20 ms apart;
 * `clear` removes them after (as for burstOnce).
 */
export async function measureLatency(
  bench: Bench,
  jobId: string,
  clear: () => Promise<void> = () => clearExecutions(bench.db),
): Promise<LatencyResult> {
  const worker = await startOrbit(bench, 'worker', 'latency-worker', { ORBIT_WORKER_CONCURRENCY: '8' });
  try {
    await sleep(1000); // the worker's start-up work is over
    // a worker's first runs are slower (connections opened, code not yet optimized): measured apart
    const cold = await spacedRuns(bench, jobId, LATENCY_WARM_UP_RUNS);
    await sleep(1000); // idle again
    log(`latency: ${bench.settings.latencyRuns} manual runs, ${LATENCY_SPACING_MS} ms apart`);
    const rows = await spacedRuns(bench, jobId, bench.settings.latencyRuns);
    return {
      latency: distribution(rows.map((r) => r.ms)),
      // the worker is idle only if it keeps up
      backlog: distribution(rows.map((r) => r.backlog)),
      cold: distribution(cold.map((r) => r.ms)),
    };
  } finally {
    await worker.stop();
    await clear();
  }
}

/** `count` manual runs queued LATENCY_SPACING_MS apart; once all ran, each one's queue → startedAt and who was ahead of it. */
async function spacedRuns(bench: Bench, jobId: string, count: number): Promise<{ ms: number; backlog: number }[]> {
  const since = await scalar<Date>(bench.db, 'SELECT clock_timestamp() AS value');
  const begin = Date.now();
  for (let i = 0; i < count; i++) {
    await enqueue(bench.db, jobId, 1);
    await sleep(Math.max(0, begin + (i + 1) * LATENCY_SPACING_MS - Date.now()));
  }
  bench.executionsRun += count;
  await until('every run to start', async () => (await unfinished(bench.db)) === 0, 60_000 + count * 100);
  const { rows } = await bench.db.query<{ ms: number; backlog: number }>(
    `SELECT (extract(epoch FROM e.started_at - e.created_at) * 1000)::float8 AS ms,
            (SELECT count(*)::int FROM executions o
              WHERE o.created_at >= $1 AND o.created_at < e.created_at AND o.finished_at > e.created_at) AS backlog
       FROM executions e WHERE e.created_at >= $1 AND e.job_id = $2`,
    [since, jobId],
  );
  return rows;
}
