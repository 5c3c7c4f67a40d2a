/**
 * What one worker cycle costs PostgreSQL, by the number of runs it moves: the worker's own
 * statements (the claim, then one save of the ended runs and the started ones, in one
 * transaction, as `WorkerService.cycle` runs them), sent one cycle after the other over one
 * connection, with no command, worker process or listener beside them. The CPU is that
 * connection's backend's (from /proc), so what else the machine runs moves the figure far less
 * than it moves a burst's. A line through the cycle sizes splits the cost into what a cycle pays
 * whatever it moves and what each run adds: the first is what larger cycles save. Then the
 * pieces of a cycle alone, one per transaction: a transaction that writes nothing, a statement
 * more (a round trip), a commit's WAL flush, a start and an end.
 */
import { DataSource } from 'typeorm';
import { Execution } from '../src/executions/domain/execution.js';
import { SqlExecutionRepository } from '../src/executions/infrastructure/sql-execution.repository.js';
import { dataSourceOptions } from '../src/postgres/data-source-options.js';
import { Database } from '../src/shared/infrastructure/database.js';
import { processTimes } from './cpu.js';
import { Bench, clearExecutions, createJob, deleteJobs, enqueue, log, median } from './support.js';

const PREFIX = 'bench-cycle';
/** Runs moved per cycle: one ended and one started run each, for each size. */
export const CYCLE_SIZES = [1, 2, 4, 8];
const RUNS_PER_SIZE = 1_600;
const ROUNDS = 3;
const WORKER = { id: 'bench-cycle-worker', labels: {} };

/** A cycle's pieces, each alone, one per transaction: backend CPU, µs. */
export interface CyclePieces {
  /** BEGIN and COMMIT, nothing written. */
  emptyTransactionUs: number;
  /** What one more statement adds (`SELECT 1`): a round trip. */
  statementUs: number;
  /** What a commit that wrote a row spends flushing the WAL (synchronous_commit on, against off). */
  walFlushUs: number;
  /** A start alone: the claim of one run and its save, committed. */
  startUs: number;
  /** An end alone: the save of one ended run (its move into the history), committed. */
  endUs: number;
}

export interface CycleCost {
  size: number;
  /** Backend CPU per run (its start and its end), µs: the median of the rounds. */
  perRunUs: number;
}

/** Least squares through (size, per-run cost × size): the cost of a cycle whatever it moves, and of each run. */
export function fixedAndPerRun(costs: readonly CycleCost[]): { fixedUs: number; perRunUs: number } {
  const points = costs.map((c) => ({ x: c.size, y: c.perRunUs * c.size }));
  const mean = (f: (p: { x: number; y: number }) => number) => points.reduce((s, p) => s + f(p), 0) / points.length;
  const mx = mean((p) => p.x);
  const my = mean((p) => p.y);
  const slope = mean((p) => (p.x - mx) * (p.y - my)) / mean((p) => (p.x - mx) ** 2);
  return { fixedUs: my - slope * mx, perRunUs: slope };
}

/** The backend's own CPU so far, ms. */
const backendMs = (pid: number) => processTimes(pid)?.own ?? 0;

const PIECE_RUNS = 2_000;

/** Backend CPU per call of `body`, µs, the median of the rounds; `setup` runs before each round, uncounted. */
async function perCall<T>(pid: number, body: (i: number, state: T) => Promise<unknown>, setup?: () => Promise<T>) {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const state = (await setup?.()) as T;
    const before = backendMs(pid);
    for (let i = 0; i < PIECE_RUNS; i++) await body(i, state);
    rounds.push(((backendMs(pid) - before) * 1000) / PIECE_RUNS);
  }
  return median(rounds);
}

/**
 * One cycle's transaction: `ended` saved with the runs it claims (up to `limit`) and starts, in
 * one statement, as the worker's cycle writes them.
 */
function cycle(db: Database, repository: SqlExecutionRepository, ended: Execution[], limit: number) {
  return db.run(async () => {
    const now = new Date();
    for (const execution of ended) execution.succeed(0, now);
    const claimed = limit > 0 ? await repository.lockDue(now, limit, WORKER) : [];
    if (claimed.length < limit) throw new Error(`only ${claimed.length} of ${limit} queued runs were claimed`);
    for (const execution of claimed) execution.start(now, WORKER.id);
    const stale = await repository.saveAll([...ended, ...claimed], new Date(now.getTime() + 60_000));
    if (stale.length > 0) throw new Error(`${stale.length} runs were changed by someone else`);
    return claimed;
  });
}

/** Claims up to `limit` queued runs and saves them started, in one transaction. */
const startSome = (db: Database, repository: SqlExecutionRepository, limit: number) => cycle(db, repository, [], limit);

/** Backend CPU per run of `runs` runs moved `size` at a time: each cycle ends the runs the one before started. */
async function cycles(db: Database, repository: SqlExecutionRepository, pid: number, size: number, runs: number) {
  let running: Execution[] = [];
  const before = backendMs(pid);
  for (let started = 0; started < runs || running.length > 0;) {
    running = await cycle(db, repository, running, started < runs ? size : 0);
    started += running.length;
  }
  return ((backendMs(pid) - before) * 1000) / runs;
}

/** The pieces a cycle is made of, each alone, one per transaction, over the connection the cycles use. */
async function measurePieces(
  bench: Bench,
  db: Database,
  repository: SqlExecutionRepository,
  pid: number,
  jobId: string,
): Promise<CyclePieces> {
  const emptyTransactionUs = await perCall(pid, () => db.run(async () => {}));
  const statementUs = (await perCall(pid, () => db.run(() => db.rows('SELECT 1')))) - emptyTransactionUs;
  // a row of a table of the bench's own (made by Orbit's role), written and committed: the WAL flushed at commit, and not
  await db.rows('CREATE TABLE IF NOT EXISTS bench_cycle_flush (id int PRIMARY KEY, n int NOT NULL)');
  let walFlushUs: number;
  try {
    await db.rows('INSERT INTO bench_cycle_flush VALUES (1, 0) ON CONFLICT DO NOTHING');
    const write = () => db.run(() => db.rows('UPDATE bench_cycle_flush SET n = n + 1 WHERE id = 1 RETURNING id'));
    const flushed = await perCall(pid, write);
    // the pool holds this one connection: the setting is its session's
    await db.rows('SET synchronous_commit = off');
    walFlushUs = flushed - (await perCall(pid, write));
    await db.rows('RESET synchronous_commit');
  } finally {
    await db.rows('DROP TABLE bench_cycle_flush');
  }
  const queue = () => enqueue(bench.db, jobId, PIECE_RUNS);
  const startUs = await perCall(pid, () => startSome(db, repository, 1), queue);
  const endUs = await perCall(
    pid,
    (i, started: Execution[]) => cycle(db, repository, [started[i]!], 0),
    async () => {
      await queue();
      return startSome(db, repository, PIECE_RUNS);
    },
  );
  return { emptyTransactionUs, statementUs, walFlushUs, startUs, endUs };
}

export async function measureCycleCosts(bench: Bench): Promise<{ costs: CycleCost[]; pieces: CyclePieces }> {
  const source = new DataSource(dataSourceOptions(bench.url, 1));
  await source.initialize();
  const jobId = await createJob(bench.db, PREFIX);
  try {
    const db = new Database(source);
    const repository = new SqlExecutionRepository(db);
    const [backend] = await db.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = backend!.pid;
    // the statements prepared and the queue's pages warm before anything is counted
    await enqueue(bench.db, jobId, 100);
    await cycles(db, repository, pid, 4, 100);
    const costs: CycleCost[] = [];
    for (const size of CYCLE_SIZES) {
      const perRun: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await enqueue(bench.db, jobId, RUNS_PER_SIZE);
        perRun.push(await cycles(db, repository, pid, size, RUNS_PER_SIZE));
      }
      costs.push({ size, perRunUs: median(perRun) });
      log(`pgtime: cycles of ${size}: ${perRun.map((us) => us.toFixed(0)).join(', ')} µs of backend CPU per run`);
    }
    return { costs, pieces: await measurePieces(bench, db, repository, pid, jobId) };
  } finally {
    await source.destroy();
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}
