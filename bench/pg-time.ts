/**
 * Where PostgreSQL's time per run goes: a c8 burst with the native launcher, run with
 * `track_functions = all` on the database, and each of Orbit's functions (the claim, the save, the
 * transition guard and the other triggers) by its own time per run (`self_time` of
 * pg_stat_user_functions: wall time inside the function, without the functions it called). Beside
 * it, PostgreSQL's CPU per run in the same burst; what the functions do not account for is the
 * statements' own parsing, planning and execution outside any function, and the protocol.
 *
 * Then what one worker cycle costs PostgreSQL by the number of runs it moves (see cycle-cost.ts):
 * the part a cycle pays whatever it moves, and the part each run adds; and the pieces of a cycle
 * alone (an empty transaction, a round trip, a commit's WAL flush, a lone start and end).
 *
 * Last, what the notices of the events channel cost the database's other connections: a c8
 * burst beside idle connections that LISTEN on a channel nobody notifies (PostgreSQL signals every
 * listening connection of the database at each commit that notified, whatever its channels),
 * and how many notices the burst sent.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { EVENTS_CHANNEL } from '../src/events/infrastructure/pg-event-listener.js';
import { burstOnce } from './burst.js';
import { CYCLE_SIZES, fixedAndPerRun, measureCycleCosts } from './cycle-cost.js';
import { Bench, clearExecutions, createJob, deleteJobs, log, scalar } from './support.js';

const PREFIX = 'bench-pgtime';
/** Functions below this share of the measured time are summed into one line. */
const SHOWN_SHARE = 0.02;

interface FunctionTime {
  name: string;
  calls: number;
  selfMs: number;
}

async function functionTimes(bench: Bench): Promise<Map<string, FunctionTime>> {
  // a snapshot of the statistics is kept for the transaction: read afresh
  await bench.db.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await bench.db.query<{ name: string; calls: string; self_time: number }>(
    `SELECT funcname AS name, calls, self_time FROM pg_stat_user_functions WHERE schemaname = current_schema()`,
  );
  return new Map(rows.map((row) => [row.name, { name: row.name, calls: Number(row.calls), selfMs: row.self_time }]));
}

export async function runPgTime(bench: Bench): Promise<void> {
  const { db } = bench;
  const { burst } = bench.settings;
  const database = await scalar<string>(db, 'SELECT quote_ident(current_database()) AS value');
  await clearExecutions(db);
  const jobId = await createJob(db, PREFIX);
  // new connections (the workers') take it; the workers are stopped before burstOnce returns, and
  // a backend writes its pending function statistics out when it exits
  await db.query(`ALTER DATABASE ${database} SET track_functions = 'all'`);
  try {
    const before = await functionTimes(bench);
    log(`pgtime: ${burst} × \`true\` at c8, native launcher, track_functions = all`);
    const result = await burstOnce(bench, jobId, [8]);
    const after = await functionTimes(bench);
    const spent = [...after.values()]
      .map((now) => {
        const then = before.get(now.name);
        return { name: now.name, calls: now.calls - (then?.calls ?? 0), selfMs: now.selfMs - (then?.selfMs ?? 0) };
      })
      .filter((f) => f.calls > 0)
      .sort((a, b) => b.selfMs - a.selfMs);
    const total = spent.reduce((sum, f) => sum + f.selfMs, 0);
    const postgresCpu = result.cpuMs.postgres ?? 0;
    const perRun = (ms: number) => `${((ms / burst) * 1000).toFixed(0)} µs`;
    const shown = spent.filter((f) => f.selfMs >= total * SHOWN_SHARE);
    const rest = spent.filter((f) => f.selfMs < total * SHOWN_SHARE);
    bench.report.figure('pgtime', {
      executions: burst,
      postgresCpuMsPerRun: postgresCpu,
      functions: spent.map((f) => ({ ...f, callsPerRun: f.calls / burst, selfMsPerRun: f.selfMs / burst })),
    });
    bench.report.add({
      scenario: 'pgtime',
      measure: `PostgreSQL per run, c8 burst, native launcher`,
      figure: `CPU ${(postgresCpu * 1000).toFixed(0)} µs; inside Orbit's functions ${perRun(total)} (wall)`,
      target: 'report',
      verdict: 'info',
    });
    for (const f of shown) {
      bench.report.add({
        scenario: 'pgtime',
        measure: `… ${f.name} (${(f.calls / burst).toFixed(2)} calls per run)`,
        figure: perRun(f.selfMs),
        target: 'report',
        ratio: `${((f.selfMs / total) * 100).toFixed(0)} %`,
        verdict: 'info',
      });
    }
    if (rest.length > 0) {
      bench.report.add({
        scenario: 'pgtime',
        measure: `… ${rest.length} other functions`,
        figure: perRun(rest.reduce((sum, f) => sum + f.selfMs, 0)),
        target: 'report',
        verdict: 'info',
      });
    }
  } finally {
    await db.query(`ALTER DATABASE ${database} RESET track_functions`);
    await clearExecutions(db);
    await deleteJobs(db, PREFIX);
  }
  await reportCycleCosts(bench);
  await reportListenerCost(bench);
}

/** Idle connections beside the burst that LISTEN on a channel nobody notifies. */
const IDLE_LISTENERS = 8;

/** A backend's CPU so far, ms (its scheduler's count, in ns: finer than /proc's ticks). */
const backendCpuMs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

async function reportListenerCost(bench: Bench): Promise<void> {
  const { burst } = bench.settings;
  const clients: pg.Client[] = [];
  const jobId = await createJob(bench.db, PREFIX);
  try {
    const listen = async (channel: string) => {
      const client = new pg.Client({ connectionString: bench.url, application_name: 'bench-listener' });
      clients.push(client);
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return { client, pid: rows[0]!.pid };
    };
    const idle = await Promise.all(Array.from({ length: IDLE_LISTENERS }, () => listen('bench_nobody_notifies')));
    const events = await listen(EVENTS_CHANNEL);
    let notices = 0;
    events.client.on('notification', () => notices++);
    log(`pgtime: ${burst} × \`true\` at c8 beside ${IDLE_LISTENERS} idle listening connections`);
    const before = idle.map(({ pid }) => backendCpuMs(pid));
    await burstOnce(bench, jobId, [8]);
    const listenerUs = (idle.reduce((sum, { pid }, i) => sum + backendCpuMs(pid) - before[i]!, 0) * 1000) / burst;
    bench.report.figure('listeners', { idle: IDLE_LISTENERS, listenerUsPerRun: listenerUs / IDLE_LISTENERS, notices });
    bench.report.add({
      scenario: 'pgtime',
      measure: `each idle connection that LISTENs in the database, during a c8 burst (${IDLE_LISTENERS} of them)`,
      figure: `${(listenerUs / IDLE_LISTENERS).toFixed(1)} µs of PostgreSQL CPU per run`,
      target: 'report',
      verdict: 'info',
    });
    bench.report.add({
      scenario: 'pgtime',
      measure: '… notices on the events channel in that burst',
      figure: `${(notices / burst).toFixed(3)} per run (${notices})`,
      target: 'report',
      verdict: 'info',
    });
  } finally {
    await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}

async function reportCycleCosts(bench: Bench): Promise<void> {
  log(`pgtime: worker cycles of ${CYCLE_SIZES.join(', ')} runs, one connection, backend CPU`);
  const { costs, pieces } = await measureCycleCosts(bench);
  const { fixedUs, perRunUs } = fixedAndPerRun(costs);
  bench.report.figure('cycleCost', { costs, fixedUsPerCycle: fixedUs, perRunUs, pieces });
  for (const cost of costs) {
    bench.report.add({
      scenario: 'pgtime',
      measure: `a worker cycle that ends ${cost.size} and starts ${cost.size} (claim, one save, commit), backend CPU per run`,
      figure: `${cost.perRunUs.toFixed(0)} µs`,
      target: 'report',
      verdict: 'info',
    });
  }
  bench.report.add({
    scenario: 'pgtime',
    measure: `… split by a line through those: what a cycle pays whatever it moves, and what each run adds`,
    figure: `${fixedUs.toFixed(0)} µs per cycle + ${perRunUs.toFixed(0)} µs per run`,
    target: 'report',
    verdict: 'info',
  });
  const pieceRows: [string, number][] = [
    ['a transaction that writes nothing (BEGIN, COMMIT)', pieces.emptyTransactionUs],
    ['… each statement more in it (`SELECT 1`: a round trip)', pieces.statementUs],
    ["… a commit's WAL flush (a row written; synchronous_commit on, against off)", pieces.walFlushUs],
    ['a start alone (BEGIN, claim 1, save it started, COMMIT)', pieces.startUs],
    ['an end alone (BEGIN, save 1 ended, COMMIT)', pieces.endUs],
  ];
  for (const [measure, us] of pieceRows) {
    bench.report.add({ scenario: 'pgtime', measure, figure: `${us.toFixed(0)} µs`, target: 'report', verdict: 'info' });
  }
  log(`pgtime: pieces of a cycle, backend CPU: ${pieceRows.map(([, us]) => us.toFixed(0)).join(' / ')} µs`);
}
