/**
 * What one worker cycle costs PostgreSQL, by the number of runs it moves: the worker's own
 * statements (the repository's save of the ended runs, the claim, the save of the started ones,
 * in one transaction, as `WorkerService.cycle` runs them), sent one cycle after the other over one
 * connection, with no command, worker process or listener beside them. The CPU is that
 * connection's backend's (from /proc), so what else the machine runs moves the figure far less
 * than it moves a burst's. A line through the cycle sizes splits the cost into what a cycle pays
 * whatever it moves and what each run adds: the first is what larger cycles save.
 */
import { DataSource } from 'typeorm';
import { Execution } from '../src/executions/domain/execution.js';
import { SqlExecutionRepository } from '../src/executions/infrastructure/sql-execution.repository.js';
import { dataSourceOptions } from '../src/postgres/data-source-options.js';
import { Database } from '../src/shared/infrastructure/database.js';
import { processTimes } from './cpu.js';
import { Bench, clearExecutions, createJob, deleteJobs, enqueue, log } from './support.js';

const PREFIX = 'bench-cycle';
/** Runs moved per cycle: one ended and one started run each, for each size. */
export const CYCLE_SIZES = [1, 2, 4, 8];
const RUNS_PER_SIZE = 1_600;
const ROUNDS = 3;
const WORKER = { id: 'bench-cycle-worker', labels: {} };

export interface CycleCost {
  size: number;
  /** Backend CPU per run (its start and its end), µs: the median of the rounds. */
  perRunUs: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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

/** Backend CPU per run of `runs` runs moved `size` at a time: each cycle ends the runs the one before started. */
async function cycles(db: Database, repository: SqlExecutionRepository, pid: number, size: number, runs: number) {
  let running: Execution[] = [];
  const before = backendMs(pid);
  for (let started = 0; started < runs || running.length > 0;) {
    const ended = running;
    running = await db.run(async () => {
      const now = new Date();
      for (const execution of ended) execution.succeed(0, now);
      const stale = await repository.saveAll(ended);
      if (stale.length > 0) throw new Error(`${stale.length} runs were changed by someone else`);
      const claimed = started < runs ? await repository.lockDue(now, size, WORKER) : [];
      for (const execution of claimed) execution.start(now, WORKER.id);
      if (claimed.length > 0) await repository.saveClaimed(claimed, new Date(now.getTime() + 60_000));
      return claimed;
    });
    started += running.length;
    if (running.length === 0 && started < runs) throw new Error(`only ${started} of ${runs} queued runs were claimed`);
  }
  return ((backendMs(pid) - before) * 1000) / runs;
}

export async function measureCycleCosts(bench: Bench): Promise<CycleCost[]> {
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
    return costs;
  } finally {
    await source.destroy();
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}
