/**
 * Growth: the same measures with a long history in the table. Finished executions
 * are seeded by SQL, each with the three events a real run leaves (queued, running, succeeded),
 * as retention keeps them in production (the queued event a row in event_log, the other two
 * held by the execution's row); then, with none, a tenth, a half and all of BENCH_GROWTH_ROWS
 * (500,000, 2,500,000 and 5,000,000 by default) in the table: the c8 burst (rate beside bare Node's, and CPU per execution), the idle
 * latency, the claim's plan and time (EXPLAIN ANALYZE of the statement a worker sent), the same
 * claim behind runs kept in the table (whose dead queue entries it walks until a vacuum), and the
 * API's lists and read by id beside their bare Node + pg reference. Each figure is printed from
 * the empty table to the largest, with the target "within 10 % of the empty table's".
 */
import {
  apiServer,
  API_MINIMUM_ROWS,
  bulkLoad,
  describeLoad,
  EndpointLoads,
  insertExecutions,
  loadEndpoints,
  sampleExecutionIds,
  seedJobs,
} from './api.js';
import { LATEST } from '../src/events/infrastructure/sql-event-log.js';
import { BurstResult, burstOnce, LatencyResult, measureLatency } from './burst.js';
import { describeCpu } from './cpu.js';
import { describeWal } from './wal.js';
import { explain, ExplainedStatement } from './explain.js';
import { CapturedStatement, PgCapture } from './pg-capture.js';
import {
  bareNode,
  Bench,
  clearExecutions,
  createJob,
  deleteExecutionsOf,
  EXECUTIONS_BYTES,
  deleteJobs,
  enqueue,
  log,
  ms,
  perSecond,
  ratio,
  scalar,
  SpawnReference,
  startOrbit,
  unfinished,
  until,
  Verdict,
  verdict,
} from './support.js';

const PREFIX = 'bench-growth-';
const CONCURRENCY = 8;
/** Target 5: each figure within this share of the empty table's. */
const WITHIN = 0.1;
/** Target 4, which must hold at every size: Orbit's req/s at least this share of the reference's… */
const API_RPS_SHARE = 0.9;
/** …and its p99 at most this multiple of the reference's. */
const API_P99_SHARE = 1.25;
/** The history is spread over this many days, inside retention's default 30: no sweep prunes it meanwhile. */
const HISTORY_DAYS = 20;
/** Bursts whose runs stay in the table before the claim is explained behind them. */
const KEPT_BURSTS = 10;
/** EXPLAIN ANALYZE runs of the claim per size; the median time is reported. */
const CLAIM_RUNS = 5;

type Claim = Pick<ExplainedStatement, 'nodes' | 'indexOnly' | 'executionMs' | 'planningMs' | 'buffers' | 'text'>;

interface Step {
  rows: number;
  /** Seconds the seeding up to this size took (its share; VACUUM ANALYZE included). */
  seedSeconds: number;
  bare: SpawnReference;
  burst: BurstResult;
  latency: LatencyResult;
  claim: Claim;
  /** The claim after runs a worker left in the table, and the autovacuums of executions meanwhile. */
  keptClaim: Claim & { runs: number; autovacuums: number };
  /** The API at this size; none on the empty table (nothing to list). */
  api: EndpointLoads | null;
  tables: { executionsBytes: number; eventsRows: number; eventsBytes: number };
}

export async function runGrowth(bench: Bench): Promise<void> {
  const { db } = bench;
  const largest = bench.settings.growthRows;
  const sizes = [0, Math.round(largest / 10), Math.round(largest / 2), largest];
  if (sizes[1]! < API_MINIMUM_ROWS) {
    throw new Error(`BENCH_GROWTH_ROWS must be at least ${API_MINIMUM_ROWS * 10}: its tenth loads the API`);
  }
  const since = new Date();
  await clearExecutions(db);
  const eventsBefore = await scalar<string>(db, 'SELECT coalesce(max(seq), 0)::text AS value FROM event_log');
  const burstJob = await createJob(db, `${PREFIX}burst`);
  const latencyJob = await createJob(db, `${PREFIX}latency`);
  const historyJobs = await seedJobs(db, `${PREFIX}history-`);
  const server = await apiServer();
  const newest = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const spacingMs = (HISTORY_DAYS * 86_400_000) / largest;
  const steps: Step[] = [];
  try {
    const claim = await captureClaim(bench, burstJob);
    let seeded = 0;
    for (const rows of sizes) {
      let seedSeconds = 0;
      if (rows > seeded) {
        const began = Date.now();
        log(`growth: seeding executions ${seeded + 1}–${rows}, three events each`);
        const range = { jobIds: historyJobs, from: seeded + 1, to: rows, newest, spacingMs, events: true };
        await bulkLoad(db, () => insertExecutions(bench, range));
        // as autovacuum would after such an insert: statistics for the planner, hint bits set
        await db.query('VACUUM (ANALYZE) executions');
        await db.query('VACUUM (ANALYZE) event_log');
        seedSeconds = (Date.now() - began) / 1000;
        log(`growth: ${rows} executions in the table (${seedSeconds.toFixed(0)} s for these)`);
        seeded = rows;
      }
      await eventsRead(db);
      steps.push(await measure(bench, rows, seedSeconds, { burstJob, latencyJob, historyJobs, claim, server }));
    }
    report(bench, steps);
  } finally {
    // the burst's and latency's own rows went after each of them; the history goes here, with its events
    // (no trigger deletes those on a TRUNCATE)
    await clearExecutions(db);
    await db.query('DELETE FROM event_log WHERE seq > $1 AND job_id = ANY ($2::uuid[])', [
      eventsBefore,
      [burstJob, latencyJob, ...historyJobs],
    ]);
    await deleteJobs(db, PREFIX);
    await db.query(`DELETE FROM audit_events WHERE created_at >= $1`, [since]);
  }
}

interface Context {
  burstJob: string;
  latencyJob: string;
  historyJobs: string[];
  claim: CapturedStatement;
  server: Awaited<ReturnType<typeof apiServer>>;
}

async function measure(bench: Bench, rows: number, seedSeconds: number, context: Context): Promise<Step> {
  const { db, settings } = bench;
  const { burstJob, latencyJob } = context;
  const size = count(rows);
  log(`growth ${size}: bare Node, ${settings.burst} × /bin/sh -c true at concurrency ${CONCURRENCY}`);
  const bare = await bareNode(settings.burst, CONCURRENCY);
  log(`growth ${size}: bare Node ${perSecond(bare.perSecond)}; Orbit, 1 worker at concurrency ${CONCURRENCY}`);
  const burst = await burstOnce(bench, burstJob, [CONCURRENCY], { clear: () => deleteExecutionsOf(db, burstJob) });
  bench.executionsRun += settings.burst;
  log(
    `growth ${size}: Orbit ${perSecond(burst.perSecond)}, CPU ${describeCpu(burst.cpuMs)}; ${describeWal(burst.wal)}`,
  );
  const latency = await measureLatency(bench, latencyJob, () => deleteExecutionsOf(db, latencyJob));
  log(`growth ${size}: idle latency p50 ${ms(latency.latency.p50)}, p99 ${ms(latency.latency.p99)}`);
  const claim = await explainClaim(bench, context.claim, burstJob);
  log(
    `growth ${size}: claim ${claim.nodes.join(' → ')} (${claim.executionMs.toFixed(2)} ms, ${claim.buffers} buffers)\n${claim.text}`,
  );
  const keptClaim = await claimAfterKeptRuns(bench, context.claim, burstJob);
  log(
    `growth ${size}: after ${keptClaim.runs} runs kept (${keptClaim.autovacuums} autovacuums), claim ${keptClaim.executionMs.toFixed(2)} ms, ${keptClaim.buffers} buffers`,
  );
  let api: EndpointLoads | null = null;
  if (rows > 0) {
    const sampleIds = await sampleExecutionIds(bench);
    api = await loadEndpoints(bench, context.server, context.historyJobs, sampleIds, `growth-api-${size}`);
  }
  const { rows: sizes } = await db.query<{ executions: string; events: string; eventRows: string }>(
    `SELECT ${EXECUTIONS_BYTES} AS executions, pg_total_relation_size('event_log') AS events,
            (SELECT count(*) FROM event_log) AS "eventRows"`,
  );
  const tables = {
    executionsBytes: Number(sizes[0]!.executions),
    eventsBytes: Number(sizes[0]!.events),
    eventsRows: Number(sizes[0]!.eventRows),
  };
  return { rows, seedSeconds, bare, burst, latency, claim, keptClaim, api, tables };
}

/**
 * Every event so far counts as read by the consumers (alerts, chains): a history's events were
 * read as they happened, and the earlier scenarios' are not this step's work. Left unread, a
 * step's burst measured the consumers reading them: three million seeded events made the worker
 * spend 4.7 ms per run at 1M rows against 1.7 on the empty table, and the herd's 10,000 jobs
 * weighed on the empty table's step.
 */
async function eventsRead(db: Bench['db']): Promise<void> {
  await db.query(`UPDATE event_cursors SET after_seq = (SELECT seq FROM (${LATEST}) AS latest), updated_at = now()`);
}

/**
 * The claim as a worker sends it: a worker whose connection goes through the capturing proxy
 * runs one execution of the job; its call of orbit_claim_free is the claim.
 */
async function captureClaim(bench: Bench, jobId: string): Promise<CapturedStatement> {
  const target = new URL(bench.url);
  const capture = await PgCapture.start(target.hostname, Number(target.port));
  try {
    const worker = await startOrbit(bench, 'worker', 'growth-claim-capture', {
      ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY),
      DATABASE_URL: capture.urlFor(bench.url),
    });
    try {
      await enqueue(bench.db, jobId, 1);
      bench.executionsRun += 1;
      await until('the captured run to finish', async () => (await unfinished(bench.db)) === 0, 60_000);
    } finally {
      await worker.stop();
    }
  } finally {
    await capture.close();
    await deleteExecutionsOf(bench.db, jobId);
  }
  const claim = capture.statements.find((s) => /orbit_claim_free\(/.test(s.sql));
  if (!claim) throw new Error(`no claim among the ${capture.statements.length} statements the worker sent`);
  return claimInside(bench, claim);
}

/**
 * The statement inside orbit_claim_free (see the ClaimByIndex migration), as the database holds it,
 * with the parameters the worker passed: its plan is the claim's (EXPLAIN of the call shows a
 * Function Scan only). It is explained with the function's setting (no sort).
 */
async function claimInside(bench: Bench, call: CapturedStatement): Promise<CapturedStatement> {
  const { rows } = await bench.db.query<{ body: string }>(
    `SELECT prosrc AS body FROM pg_proc WHERE proname = 'orbit_claim_free'`,
  );
  const names = ['due', 'wanted', 'labels', 'worker'];
  const sql = names.reduce(
    (text, name, i) => text.replace(new RegExp(`\\b${name}\\b`, 'g'), `$${i + 1}`),
    rows[0]!.body,
  );
  return { sql, params: call.params };
}

/**
 * EXPLAIN ANALYZE of the claim with a burst's worth of the job's executions queued, each run
 * rolled back; the median time. They are made due before the captured `now`, so that it finds
 * them, or, `behindRuns`, the claim is asked at a `now` just after them: behind the runs before
 * them, as a worker's next claim is.
 */
async function explainClaim(
  bench: Bench,
  captured: CapturedStatement,
  jobId: string,
  behindRuns = false,
): Promise<Claim> {
  const { db } = bench;
  await enqueue(db, jobId, bench.settings.burst);
  try {
    let claim = captured;
    if (behindRuns) {
      const now = await scalar<string>(db, `SELECT (clock_timestamp() + interval '1 second')::text AS value`);
      claim = { ...captured, params: [now, ...captured.params.slice(1)] };
    } else {
      await db.query(`UPDATE executions SET due_at = due_at - interval '1 day' WHERE job_id = $1`, [jobId]);
    }
    await db.query('ANALYZE executions');
    const runs: ExplainedStatement[] = [];
    await db.query('SET enable_sort = off');
    try {
      for (let i = 0; i < CLAIM_RUNS; i++) runs.push(await explain(db, claim));
    } finally {
      await db.query('RESET enable_sort');
    }
    const times = runs.map((r) => r.executionMs).sort((a, b) => a - b);
    const last = runs[runs.length - 1]!;
    return {
      nodes: last.nodes,
      indexOnly: last.indexOnly,
      executionMs: times[Math.floor(times.length / 2)]!,
      planningMs: last.planningMs,
      buffers: last.buffers,
      text: last.text,
    };
  } finally {
    await deleteExecutionsOf(db, jobId);
  }
}

/**
 * Runs a worker claimed stay in the table, as in production: each left dead entries in the queue's
 * indexes, ahead of the live ones, which every claim walks until a vacuum removes them (the
 * QueueVacuum migration bounds how many). KEPT_BURSTS bursts one after another, kept, then the claim
 * behind them; all of them are deleted after.
 */
async function claimAfterKeptRuns(
  bench: Bench,
  captured: CapturedStatement,
  jobId: string,
): Promise<Step['keptClaim']> {
  const { db, settings } = bench;
  const autovacuums = async () =>
    Number(
      await scalar<string>(
        db,
        `SELECT autovacuum_count::text AS value FROM pg_stat_user_tables WHERE relname = 'executions_active'`,
      ),
    );
  const before = await autovacuums();
  const worker = await startOrbit(bench, 'worker', 'growth-kept-runs', {
    ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY),
  });
  try {
    for (let i = 0; i < KEPT_BURSTS; i++) {
      await enqueue(db, jobId, settings.burst);
      bench.executionsRun += settings.burst;
      await until('a kept burst to finish', async () => (await unfinished(db)) === 0, 60_000 + settings.burst * 200);
    }
  } finally {
    await worker.stop();
  }
  try {
    const claim = await explainClaim(bench, captured, jobId, true);
    return { ...claim, runs: KEPT_BURSTS * settings.burst, autovacuums: (await autovacuums()) - before };
  } finally {
    await deleteExecutionsOf(db, jobId);
  }
}

// ---------------------------------------------------------------------------------------------
// the report

/** 0, 200k, 1M, 5M */
function count(rows: number): string {
  if (rows >= 1e6 && rows % 1e5 === 0) return `${rows / 1e6}M`;
  if (rows >= 1e3 && rows % 100 === 0) return `${rows / 1e3}k`;
  return String(rows);
}

/** `0: a; 1M: b; 5M: c` */
const along = (steps: Step[], figure: (step: Step) => string) =>
  steps.map((step) => `${count(step.rows)}: ${figure(step)}`).join('; ');

function report(bench: Bench, steps: Step[]): void {
  const empty = steps[0]!;
  const full = steps[steps.length - 1]!;
  const within = `within ${WITHIN * 100} % of the empty table's`;
  const row = (measure: string, figure: string, share: number, met: boolean, target = within) =>
    bench.report.add({ scenario: 'growth', measure, figure, target, ratio: ratio(share), verdict: verdict(met) });

  // the burst against bare Node of the same step, so that the machine's drift between steps cancels
  const shareOfBare = (step: Step) => step.burst.perSecond / step.bare.perSecond;
  const burstShare = shareOfBare(full) / shareOfBare(empty);
  row(
    `c${CONCURRENCY} burst of ${bench.settings.burst}, 1 worker (bare Node c${CONCURRENCY} of the same step)`,
    along(
      steps,
      (s) => `${perSecond(s.burst.perSecond)} (${ratio(shareOfBare(s))}× bare ${perSecond(s.bare.perSecond)})`,
    ),
    burstShare,
    burstShare >= 1 - WITHIN && full.burst.failed === 0,
    `${within} (× bare Node)`,
  );
  const cpu = (step: Step) => step.burst.cpuMs.besideCommands!;
  const cpuShare = cpu(full) / cpu(empty);
  row(
    '… CPU per execution beside the commands (worker + native launcher + PostgreSQL)',
    along(steps, (s) => describeCpu(s.burst.cpuMs)),
    cpuShare,
    cpuShare <= 1 + WITHIN,
  );
  // the same work writes the same log at any size: a change here is the history's doing, on any machine
  bench.report.add({
    scenario: 'growth',
    measure: '… what PostgreSQL wrote per execution (its WAL)',
    figure: along(steps, (s) => describeWal(s.burst.wal)),
    target: 'report',
    ratio: ratio(full.burst.wal.bytes / empty.burst.wal.bytes),
    verdict: 'info',
  });
  for (const q of ['p50', 'p99'] as const) {
    const share = full.latency.latency[q] / empty.latency.latency[q];
    row(
      `idle latency ${q}, ${bench.settings.latencyRuns} runs 20 ms apart`,
      along(steps, (s) => ms(s.latency.latency[q])),
      share,
      share <= 1 + WITHIN,
    );
  }
  const claimShare = full.claim.executionMs / empty.claim.executionMs;
  const samePlan = full.claim.nodes.join() === empty.claim.nodes.join();
  row(
    `the claim (EXPLAIN ANALYZE, median of ${CLAIM_RUNS}, ${bench.settings.burst} queued): ${full.claim.nodes.join(' → ')}`,
    along(
      steps,
      (s) =>
        `${s.claim.executionMs.toFixed(2)} ms, ${s.claim.buffers} buffers${s.claim.indexOnly ? '' : ' (Seq Scan)'}`,
    ),
    claimShare,
    claimShare <= 1 + WITHIN && samePlan && full.claim.indexOnly,
    `${within}, the same plan${samePlan ? '' : ` (at 0: ${empty.claim.nodes.join(' → ')})`}`,
  );
  const kept = full.keptClaim;
  bench.report.add({
    scenario: 'growth',
    measure: `… the claim behind ${kept.runs} runs kept (their dead queue entries, until a vacuum), autovacuums of executions meanwhile`,
    figure: along(
      steps,
      (s) =>
        `${s.keptClaim.executionMs.toFixed(2)} ms, ${s.keptClaim.buffers} buffers (${s.keptClaim.autovacuums} autovacuums)`,
    ),
    target: 'report',
    ratio: ratio(kept.buffers / empty.keptClaim.buffers),
    verdict: 'info',
  });
  const loaded = steps.filter((s): s is Step & { api: EndpointLoads } => s.api !== null);
  for (const endpoint of loaded[0]?.api.endpoints ?? []) {
    const at = (s: Step & { api: EndpointLoads }) => ({
      orbit: s.api.loads[endpoint.key]!,
      bare: s.api.references[endpoint.key]!,
    });
    const holds = loaded.every((s) => {
      const { orbit, bare } = at(s);
      return (
        orbit.requestsPerSecond >= API_RPS_SHARE * bare.requestsPerSecond &&
        orbit.latencyMs.p99 <= API_P99_SHARE * bare.latencyMs.p99 &&
        orbit.non2xx + orbit.errors + orbit.timeouts === 0
      );
    });
    const last = at(loaded[loaded.length - 1]!);
    const outcome: Verdict = verdict(holds);
    bench.report.add({
      scenario: 'growth',
      measure: `${endpoint.label}, 50 conn. (bare Node + pg at each size)`,
      figure: loaded
        .map((s) => `${count(s.rows)}: ${describeLoad(at(s).orbit)} (ref ${describeLoad(at(s).bare)})`)
        .join('; '),
      target: `at every size ≥ ${API_RPS_SHARE} × the reference's req/s, p99 ≤ ${API_P99_SHARE} × its p99`,
      ratio: ratio(last.orbit.requestsPerSecond / last.bare.requestsPerSecond),
      verdict: outcome,
    });
  }
  bench.report.add({
    scenario: 'growth',
    measure: 'seeded history: finished executions with three events each, by SQL (VACUUM ANALYZE included)',
    figure: along(
      steps,
      (s) =>
        `executions ${(s.tables.executionsBytes / 1e6).toFixed(0)} MB, events ${s.tables.eventsRows} rows ` +
        `${(s.tables.eventsBytes / 1e6).toFixed(0)} MB${s.seedSeconds > 0 ? `, seeded in ${s.seedSeconds.toFixed(0)} s` : ''}`,
    ),
    target: 'report',
    verdict: 'info',
  });
  bench.report.figure(
    'growth',
    steps.map((s) => ({
      rows: s.rows,
      seedSeconds: s.seedSeconds,
      tables: s.tables,
      bareNodeC8: s.bare,
      burstC8: s.burst,
      idleLatencyMs: s.latency,
      claim: s.claim,
      keptClaim: s.keptClaim,
      api: s.api && { loads: s.api.loads, reference: s.api.references },
    })),
  );
}
