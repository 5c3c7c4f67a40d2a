/**
 * Target 6: a worker at concurrency 32 kept busy with `sleep 1` stays under 200 MB of RSS (its
 * native launcher reported beside it), and the database grows per execution only by the
 * execution row and its bounded output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import {
  Bench,
  clearExecutions,
  createJob,
  deleteJobs,
  distribution,
  enqueue,
  log,
  mb,
  Scenario,
  sleep,
  startOrbit,
  TableSize,
  tableSizes,
  unfinished,
  verdict,
} from './support.js';

const CONCURRENCY = 32;
const RSS_LIMIT_BYTES = 200e6;
const SAMPLE_MS = 250;
/** Kept queued: always more than the worker can take at once. */
const QUEUE_LOW = 2 * CONCURRENCY;
const QUEUE_HIGH = 3 * CONCURRENCY;
/**
 * Tables that may grow with every execution: the row itself (in the queue, then the history), its
 * (bounded) captured output, its queued event (its other events are read from its row), and the
 * key of a scheduled or chained run; all go with the run.
 */
const PER_EXECUTION_TABLES = new Set([
  'executions',
  'executions_active',
  'executions_history',
  'execution_outputs',
  'event_log',
  'execution_slots',
  'execution_chains',
]);
/** Any other table growing by this many rows per execution or more grows per execution. */
const PER_EXECUTION_ROWS = 0.01;

export async function runFootprint(bench: Bench): Promise<void> {
  const { db } = bench;
  const seconds = bench.settings.footprintSeconds;
  await clearExecutions(db);
  const jobId = await createJob(db, 'bench-footprint', { command: 'sleep 1' });
  const before = await tableSizes(db);
  const worker = await startOrbit(bench, 'worker', 'footprint-worker', {
    ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY),
  });
  const workerRss: number[] = [];
  const launcherRss: number[] = [];
  const running: number[] = [];
  let minQueued = Infinity;
  let queuedTotal = 0;
  let launcherPid: number | undefined;
  let after: Record<string, TableSize>;
  try {
    await sleep(1000);
    const idleRss = rssBytes(worker.pid);
    const sample = () => {
      const rss = rssBytes(worker.pid);
      if (rss !== null) workerRss.push(rss);
      let child = launcherPid === undefined ? null : rssBytes(launcherPid);
      if (child === null) {
        launcherPid = childrenOf(worker.pid).find((c) => c.cmdline.includes('orbit-launcher'))?.pid;
        child = launcherPid === undefined ? null : rssBytes(launcherPid);
      }
      if (child !== null) launcherRss.push(child);
    };
    log(`footprint: worker at concurrency ${CONCURRENCY}, \`sleep 1\` kept queued for ${seconds} s`);
    const end = Date.now() + seconds * 1000;
    let tick = Date.now();
    while (Date.now() < end) {
      sample();
      const { rows } = await db.query<{ queued: number; running: number }>(
        `SELECT count(*) FILTER (WHERE status = 'QUEUED')::int AS queued,
                count(*) FILTER (WHERE status = 'RUNNING')::int AS running
           FROM executions WHERE status IN ('QUEUED', 'RUNNING')`,
      );
      const { queued, running: now } = rows[0]!;
      if (queuedTotal > 0) {
        minQueued = Math.min(minQueued, queued);
        running.push(now);
      }
      if (queued < QUEUE_LOW) {
        await enqueue(db, jobId, QUEUE_HIGH - queued, 'sleep 1');
        queuedTotal += QUEUE_HIGH - queued;
      }
      tick += SAMPLE_MS;
      await sleep(Math.max(0, tick - Date.now()));
    }
    log(`footprint: draining the ${queuedTotal} queued runs`);
    while ((await unfinished(db)) > 0) {
      sample();
      await sleep(SAMPLE_MS);
    }
    bench.executionsRun += queuedTotal;
    const worker_ = distribution(workerRss);
    const launcher = distribution(launcherRss);
    const busy = distribution(running);
    bench.report.figure('footprint', {
      concurrency: CONCURRENCY,
      seconds,
      executions: queuedTotal,
      samples: workerRss.length,
      sampleEveryMs: SAMPLE_MS,
      workerIdleRssBytes: idleRss,
      workerRssBytes: worker_,
      launcherRssBytes: launcher,
      runningWhileLoaded: busy,
      minQueuedWhileLoaded: minQueued,
      limitBytes: RSS_LIMIT_BYTES,
    });
    bench.report.add({
      scenario: 'footprint',
      measure:
        `worker max RSS, c${CONCURRENCY} \`sleep 1\` for ${seconds} s ` +
        `(idle ${idleRss === null ? '?' : mb(idleRss)}; mean running ${busy.mean.toFixed(1)}, min queued ${minQueued})`,
      figure: mb(worker_.max),
      target: `< ${mb(RSS_LIMIT_BYTES)}`,
      verdict: verdict(worker_.max < RSS_LIMIT_BYTES),
    });
    bench.report.add({
      scenario: 'footprint',
      measure: `its native launcher's max RSS (pid ${launcherPid ?? '?'})`,
      figure: launcherRss.length > 0 ? mb(launcher.max) : 'not found',
      target: 'report',
      verdict: 'info',
    });
  } finally {
    await worker.stop();
    after = await tableSizes(db);
    await clearExecutions(db);
    await deleteJobs(db, 'bench-footprint');
  }
  const executions = (after.executions?.rows ?? 0) - (before.executions?.rows ?? 0);
  bench.report.figure('footprintTableGrowth', growth(before, after, executions));
  reportGrowth(bench, 'footprint', `a batch of ${executions} executions`, before, after, executions, true);
}

export interface TableGrowth {
  table: string;
  rows: number;
  bytes: number;
  bytesPerExecution: number;
  rowsPerExecution: number;
  deadRowsAfter: number;
}

export function growth(
  before: Record<string, TableSize>,
  after: Record<string, TableSize>,
  executions: number,
): TableGrowth[] {
  return Object.keys(after).map((table) => {
    const rows = after[table]!.rows - (before[table]?.rows ?? 0);
    const bytes = after[table]!.bytes - (before[table]?.bytes ?? 0);
    return {
      table,
      rows,
      bytes,
      bytesPerExecution: executions > 0 ? bytes / executions : NaN,
      rowsPerExecution: executions > 0 ? rows / executions : NaN,
      deadRowsAfter: after[table]!.deadRows,
    };
  });
}

/** One row per table that changed, and one verdict: did anything but executions (+ outputs, events) grow per execution? */
export function reportGrowth(
  bench: Bench,
  scenario: Scenario | 'run',
  what: string,
  before: Record<string, TableSize>,
  after: Record<string, TableSize>,
  executions: number,
  listPerExecutionTables = false,
): void {
  const changes = growth(before, after, executions).filter(
    (g) => (listPerExecutionTables && PER_EXECUTION_TABLES.has(g.table)) || g.rows !== 0 || g.bytes !== 0,
  );
  const offenders = changes.filter(
    (g) => !PER_EXECUTION_TABLES.has(g.table) && executions > 0 && g.rowsPerExecution >= PER_EXECUTION_ROWS,
  );
  for (const g of changes) {
    const perExecution = PER_EXECUTION_TABLES.has(g.table);
    bench.report.add({
      scenario,
      measure: `db growth over ${what}: ${g.table}`,
      figure:
        `${signed(g.rows)} rows, ${signed(Math.round(g.bytes / 1024))} KiB` +
        (perExecution && executions > 0 ? ` (${g.bytesPerExecution.toFixed(0)} B/execution)` : '') +
        (!perExecution && g.rows <= 0 && g.bytes > 0 ? ' (space of deleted rows, reused later)' : ''),
      target: perExecution ? 'the row + its bounded output + its events' : 'no rows per execution',
      verdict: perExecution ? 'info' : verdict(!offenders.includes(g)),
    });
  }
  bench.report.add({
    scenario,
    measure: `db growth over ${what}: tables growing per execution`,
    figure:
      offenders.length > 0
        ? offenders.map((g) => g.table).join(', ')
        : `none besides executions (+ outputs, events, run keys)`,
    target: [...PER_EXECUTION_TABLES].join(', ') + ' only',
    verdict: verdict(offenders.length === 0),
  });
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));

/** Resident set size from /proc/<pid>/status (VmRSS), or null once the process is gone. */
function rssBytes(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/** The direct children of a process, from /proc/<pid>/stat. */
function childrenOf(parent: number): { pid: number; cmdline: string }[] {
  const children: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      children.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
      });
    } catch {
      // the process ended while being read
    }
  }
  return children;
}
