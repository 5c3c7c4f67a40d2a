/**
 * Placement's cost and the claim under held limits: (1) the burst at concurrency 8 with every
 * run carrying a selector and a limit that never binds, beside the plain burst, alternating in
 * the same run, as rates and as the worker's CPU per execution (/proc); (2) 100,000 queued runs
 * of which 99 % are held by a full limit: the claim's time and plan.
 */
import { readFileSync } from 'node:fs';
import { CLAIM } from '../src/executions/infrastructure/sql-execution.repository.js';
import { explain } from './explain.js';
import {
  Bench,
  clearExecutions,
  createJob,
  deleteJobs,
  distribution,
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

const PREFIX = 'bench-placement';
const ROUNDS = 3;
const COST_TARGET = 0.95;
const CLAIM_TARGET_MS = 5;
const QUEUED = 100_000;
const HELD_SHARE = 0.99;
/** A limit no burst reaches: every run still takes its lane's lock and count. */
const NEVER_BINDING = 10_000;

/** User + system CPU of a process and its children that ended, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

async function queue(bench: Bench, jobId: string, count: number, placed: boolean): Promise<void> {
  await bench.db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
                             created_at, worker_selector, max_concurrent)
     SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', clock_timestamp(), clock_timestamp(), $3, $4
     FROM generate_series(1, $2)`,
    [jobId, count, placed ? { region: 'eu' } : {}, placed ? NEVER_BINDING : null],
  );
}

async function burst(bench: Bench, jobId: string, placed: boolean): Promise<{ rate: number; cpuMsPer: number }> {
  const count = bench.settings.burst;
  const worker = await startOrbit(bench, 'worker', `placement-${placed ? 'placed' : 'plain'}`, {
    ORBIT_WORKER_CONCURRENCY: '8',
    ORBIT_WORKER_LABELS: 'region=eu',
  });
  bench.workersStarted++;
  try {
    await sleep(500);
    const cpuBefore = cpuMs(worker.pid);
    const begin = Date.now();
    await queue(bench, jobId, count, placed);
    bench.executionsRun += count;
    await until('the burst to finish', async () => (await unfinished(bench.db)) === 0, 60_000 + count * 200);
    const { rows } = await bench.db.query<{ last: Date }>(`SELECT max(finished_at) AS last FROM executions`);
    const cpu = cpuMs(worker.pid) - cpuBefore;
    return { rate: count / ((rows[0]!.last.getTime() - begin) / 1000), cpuMsPer: cpu / count };
  } finally {
    await worker.stop();
    await clearExecutions(bench.db);
  }
}

export async function runPlacement(bench: Bench): Promise<void> {
  await clearExecutions(bench.db);
  const jobId = await createJob(bench.db, PREFIX);
  try {
    const plain: { rate: number; cpuMsPer: number }[] = [];
    const placed: { rate: number; cpuMsPer: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      plain.push(await burst(bench, jobId, false));
      placed.push(await burst(bench, jobId, true));
      log(
        `placement: round ${round}: plain ${perSecond(plain.at(-1)!.rate)}, placed ${perSecond(placed.at(-1)!.rate)}`,
      );
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const rateShare = sum(placed.map((r) => r.rate)) / sum(plain.map((r) => r.rate));
    const cpuShare = sum(plain.map((r) => r.cpuMsPer)) / sum(placed.map((r) => r.cpuMsPer));
    bench.report.figure('placement_burst', { rounds: ROUNDS, plain, placed, rateShare, workerCpuShare: cpuShare });
    bench.report.add({
      scenario: 'placement',
      measure: `${bench.settings.burst} × \`true\`, c8, each with a selector and a never-binding limit, beside plain (${ROUNDS} rounds alternating)`,
      figure: `${perSecond(sum(placed.map((r) => r.rate)) / ROUNDS)} vs ${perSecond(sum(plain.map((r) => r.rate)) / ROUNDS)}; worker CPU ${(sum(placed.map((r) => r.cpuMsPer)) / ROUNDS).toFixed(2)} vs ${(sum(plain.map((r) => r.cpuMsPer)) / ROUNDS).toFixed(2)} ms per run`,
      target: `≥ ${COST_TARGET} × plain`,
      ratio: ratio(rateShare),
      verdict: verdict(rateShare >= COST_TARGET),
    });
    await heldClaim(bench, jobId);
  } finally {
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
  }
}

/** 99 % of 100,000 queued runs are older and held by a full limit: the claim must find the others at once. */
async function heldClaim(bench: Bench, freeJob: string): Promise<void> {
  const heldJob = await createJob(bench.db, `${PREFIX}-held`);
  const held = Math.round(QUEUED * HELD_SHARE);
  await bench.db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
                             created_at, max_concurrent, started_at, worker_id)
     VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'RUNNING', 1, 'MANUAL', now(), now(), 1, now(), 'elsewhere')`,
    [heldJob],
  );
  await bench.db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
                             created_at, max_concurrent)
     SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() - interval '1 hour' + i * interval '1 ms',
            now(), 1
     FROM generate_series(1, $2) i`,
    [heldJob, held],
  );
  await bench.db.query(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
     SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() - interval '1 minute', now()
     FROM generate_series(1, $2)`,
    [freeJob, QUEUED - held],
  );
  await bench.db.query('ANALYZE executions');
  const params = [new Date().toISOString(), '8', JSON.stringify({ host: 'bench' }), 'bench-claimant'];
  const times: number[] = [];
  await bench.db.query(`PREPARE bench_claim AS ${CLAIM}`);
  try {
    for (let i = 0; i < 30; i++) {
      await bench.db.query('BEGIN');
      const began = process.hrtime.bigint();
      const { rows } = await bench.db.query(
        `EXECUTE bench_claim(${params.map((p) => bench.db.escapeLiteral(p)).join(', ')})`,
      );
      times.push(Number(process.hrtime.bigint() - began) / 1e6);
      await bench.db.query('ROLLBACK');
      if (rows.length !== 8) throw new Error(`the claim found ${rows.length} runs, not 8`);
    }
  } finally {
    await bench.db.query('DEALLOCATE bench_claim');
  }
  const plan = await explain(bench.db, { sql: CLAIM, params });
  const claim = distribution(times.slice(5));
  bench.report.figure('placement_held_claim', {
    queued: QUEUED,
    held,
    claimMs: claim,
    plan: { nodes: plan.nodes, indexOnly: plan.indexOnly, executionMs: plan.executionMs, text: plan.text },
  });
  bench.report.add({
    scenario: 'placement',
    measure: `a claim of 8 among ${QUEUED.toLocaleString('en')} queued runs, ${HELD_SHARE * 100} % held by a full limit (plan in the JSON)`,
    figure: `p50 ${ms(claim.p50)}, max ${ms(claim.max)}; ${plan.indexOnly ? 'index scans only' : 'a sequential scan'}`,
    target: `< ${CLAIM_TARGET_MS} ms`,
    verdict: verdict(claim.p50 < CLAIM_TARGET_MS && plan.indexOnly),
  });
  log(`placement: held claim p50 ${ms(claim.p50)}; plan:\n${plan.text}`);
}
