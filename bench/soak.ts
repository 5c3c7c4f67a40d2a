/**
 * The hot set under a long load: one worker at c8 runs `true` for BENCH_SOAK_SECONDS, fed in
 * batches of 500 as it drains them, while the queue partition's dead rows, live rows, size and
 * autovacuums are sampled every 10 s. The dead rows must stay bounded (autovacuum keeps up): what a
 * claim walks is what the queue holds, not how long Orbit has run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Bench,
  clearExecutions,
  createJob,
  deleteJobs,
  enqueue,
  log,
  startOrbit,
  unfinished,
  until,
} from './support.js';

const PREFIX = 'bench-soak';
const BATCH = 500;
const SAMPLE_MS = 10_000;

interface Sample {
  at: number;
  dead: number;
  live: number;
  bytes: number;
  autovacuums: number;
}

async function sample(bench: Bench, began: number): Promise<Sample> {
  await bench.db.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await bench.db.query<{ dead: string; live: string; bytes: string; autovacuums: string }>(
    `SELECT n_dead_tup AS dead, n_live_tup AS live, pg_total_relation_size(relid) AS bytes, autovacuum_count AS autovacuums
       FROM pg_stat_user_tables WHERE relname = 'executions_active'`,
  );
  const row = rows[0]!;
  return {
    at: (Date.now() - began) / 1000,
    dead: Number(row.dead),
    live: Number(row.live),
    bytes: Number(row.bytes),
    autovacuums: Number(row.autovacuums),
  };
}

export async function runSoak(bench: Bench): Promise<void> {
  const seconds = bench.settings.soakSeconds;
  await clearExecutions(bench.db);
  const jobId = await createJob(bench.db, PREFIX);
  const worker = await startOrbit(bench, 'worker', 'soak-c8', { ORBIT_WORKER_CONCURRENCY: '8' });
  const samples: Sample[] = [];
  let runs = 0;
  try {
    log(`soak: one worker at c8, \`true\` in batches of ${BATCH}, for ${seconds} s`);
    const began = Date.now();
    const first = await sample(bench, began);
    let next = began + SAMPLE_MS;
    while (Date.now() - began < seconds * 1000) {
      if ((await unfinished(bench.db)) < BATCH / 5) {
        await enqueue(bench.db, jobId, BATCH);
        runs += BATCH;
      }
      if (Date.now() >= next) {
        samples.push(await sample(bench, began));
        next += SAMPLE_MS;
      }
      await sleep(100);
    }
    await until('the soak to drain', async () => (await unfinished(bench.db)) === 0, 120_000);
    const elapsed = (Date.now() - began) / 1000;
    const last = await sample(bench, began);
    samples.push(last);
    bench.executionsRun += runs;
    const maxDeadOf = (half: Sample[]) => Math.max(0, ...half.map((s) => s.dead));
    const early = maxDeadOf(samples.filter((s) => s.at <= seconds / 2));
    const late = maxDeadOf(samples.filter((s) => s.at > seconds / 2));
    bench.report.figure('soak', { seconds, runs, samples });
    bench.report.add({
      scenario: 'soak',
      measure: `${runs} runs of \`true\` at c8 over ${elapsed.toFixed(0)} s (${(runs / elapsed).toFixed(0)}/s): dead rows of the queue partition, sampled every 10 s`,
      figure:
        `max ${early} in the first half, ${late} in the second; after: ${last.dead} dead, ${last.live} live, ` +
        `${(last.bytes / 1e6).toFixed(1)} MB; ${last.autovacuums - first.autovacuums} autovacuums`,
      target: 'bounded: the second half at most 1.5× the first',
      ratio: early > 0 ? (late / early).toFixed(2) : 'n/a',
      verdict: late <= Math.max(early * 1.5, BATCH) ? 'met' : 'not met',
    });
  } finally {
    await worker.stop();
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}
