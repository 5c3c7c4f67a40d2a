/**
 * Targets 3 and 4: how precisely the scheduler of a worker process (`main.js worker` runs the
 * scheduler too) fires a job every second, and how it copes with 10,000 jobs due the same second.
 */
import pg from 'pg';
import {
  bareNodeRate,
  Bench,
  clearExecutions,
  createJob,
  deleteJobs,
  distribution,
  log,
  ms,
  perSecond,
  ratio,
  scalar,
  sleep,
  startOrbit,
  unfinished,
  until,
  verdict,
} from './support.js';

const SCHEDULE_P50_MS = 10;
const SCHEDULE_P99_MS = 50;

/** Target 3: a `* * * * * *` job for N seconds; startedAt − scheduledFor, and every slot fired once. */
export async function runSchedule(bench: Bench): Promise<void> {
  const { db } = bench;
  const seconds = bench.settings.scheduleSeconds;
  await clearExecutions(db);
  const worker = await startOrbit(bench, 'worker', 'schedule-worker', { ORBIT_WORKER_CONCURRENCY: '8' });
  const firstSlot = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
  const jobId = await createJob(db, 'bench-schedule', { cron: '* * * * * *', enabled: true, nextRunAt: firstSlot });
  try {
    log(`schedule: a job every second for ${seconds} s from ${firstSlot.toISOString()}`);
    await sleep(firstSlot.getTime() + seconds * 1000 - 500 - Date.now());
    await db.query(
      `UPDATE jobs SET enabled = false, next_run_at = NULL, updated_at = now(), version = version + 1 WHERE id = $1`,
      [jobId],
    );
    await until('the scheduled runs to finish', async () => (await unfinished(db)) === 0, 60_000);
    const { rows } = await db.query<{ slot: Date; late_ms: number; fire_ms: number }>(
      `SELECT scheduled_for AS slot,
              (extract(epoch FROM started_at - scheduled_for) * 1000)::float8 AS late_ms,
              (extract(epoch FROM created_at - scheduled_for) * 1000)::float8 AS fire_ms
         FROM executions WHERE job_id = $1 AND trigger = 'SCHEDULE' ORDER BY scheduled_for`,
      [jobId],
    );
    bench.executionsRun += rows.length;
    const slots = rows.map((r) => r.slot.getTime());
    const first = slots[0];
    const last = slots[slots.length - 1];
    const expected = first === undefined || last === undefined ? seconds : Math.round((last - first) / 1000) + 1;
    const distinct = new Set(slots).size;
    const missed = Math.max(0, expected - distinct);
    const duplicated = rows.length - distinct;
    const startLateness = distribution(rows.map((r) => r.late_ms));
    const fireLateness = distribution(rows.map((r) => r.fire_ms));
    bench.report.figure('schedule', {
      seconds,
      plannedFirstSlot: firstSlot.toISOString(),
      firstSlot: first === undefined ? null : new Date(first).toISOString(),
      lastSlot: last === undefined ? null : new Date(last).toISOString(),
      expectedSlots: expected,
      executions: rows.length,
      missed,
      duplicated,
      startedMinusScheduledMs: startLateness,
      createdMinusScheduledMs: fireLateness,
    });
    bench.report.add({
      scenario: 'schedule',
      measure: `startedAt − scheduledFor p50, \`* * * * * *\` for ${seconds} s`,
      figure: ms(startLateness.p50),
      target: `≤ ${SCHEDULE_P50_MS} ms`,
      verdict: verdict(startLateness.p50 <= SCHEDULE_P50_MS),
    });
    bench.report.add({
      scenario: 'schedule',
      measure: `startedAt − scheduledFor p99 (createdAt − scheduledFor p99 ${ms(fireLateness.p99)})`,
      figure: ms(startLateness.p99),
      target: `≤ ${SCHEDULE_P99_MS} ms`,
      verdict: verdict(startLateness.p99 <= SCHEDULE_P99_MS),
    });
    bench.report.add({
      scenario: 'schedule',
      measure: `slots first..last: ${expected}; executions ${rows.length}`,
      figure: `${missed} missed, ${duplicated} duplicated`,
      target: '0 missed, 0 duplicated',
      verdict: verdict(missed === 0 && duplicated === 0 && rows.length > 0),
    });
  } finally {
    await worker.stop();
    await clearExecutions(db);
    await deleteJobs(db, 'bench-schedule');
  }
}

const HERD_PREFIX = 'bench-herd-';
const HERD_CREATED_WITHIN_MS = 1000;
/**
 * "Drains at the burst rate of target 1": the drain rate must reach this share of the
 * concurrency-8 burst rate measured earlier in the run (a 10 % allowance for the noise of one run).
 */
const HERD_DRAIN_SHARE_OF_BURST = 0.9;
const BURST_TARGET_RATIO = 0.8;

/**
 * Target 4: N enabled jobs fire on one second. Seeded by SQL, each with a 6-field cron naming
 * that second (UTC) and next_run_at on it, run by one worker process at concurrency 8.
 */
export async function runHerd(bench: Bench): Promise<void> {
  const { db } = bench;
  const jobs = bench.settings.herdJobs;
  await clearExecutions(db);
  const { orbitC8: burstRate } = bench.burstRates;
  let bareC8: number | undefined;
  if (burstRate === undefined) {
    log('herd: no burst in this run; measuring bare Node at concurrency 8 to compare the drain with target 1');
    bareC8 = await bareNodeRate(bench.settings.burst, 8);
  }
  const worker = await startOrbit(bench, 'worker', 'herd-worker', { ORBIT_WORKER_CONCURRENCY: '8' });
  // the executions' insert trigger notifies at every commit: the arrival of the last
  // notification is when the last of them became visible (created_at is when a scheduler
  // pass began, before its insert and commit)
  const listener = new pg.Client({ connectionString: bench.url, application_name: 'orbit-bench-listener' });
  const commits: number[] = [];
  listener.on('notification', () => commits.push(Date.now()));
  listener.on('error', (error) => log(`herd: the LISTEN connection failed: ${error.message}`));
  await listener.connect();
  await listener.query('LISTEN orbit_executions_queued');
  try {
    await sleep(500);
    const slot = new Date(Math.ceil((Date.now() + 4000 + jobs / 10) / 1000) * 1000);
    const cron = `${slot.getUTCSeconds()} ${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`;
    log(`herd: seeding ${jobs} jobs \`${cron}\` (UTC) due at ${slot.toISOString()}`);
    await db.query(
      `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
         misfire_policy, concurrency_policy, next_run_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1 || g, 'true', $2, 'UTC', 0, 60, true, 'RUN_ONCE', 'ALLOW', $3, now(), now()
         FROM generate_series(1, $4) AS g`,
      [HERD_PREFIX, cron, slot, jobs],
    );
    const margin = slot.getTime() - Date.now();
    if (margin < 500) log(`herd: WARNING the jobs were seeded only ${margin} ms before their slot`);

    await sleep(Math.max(0, slot.getTime() - Date.now()));
    let seenAt: number | undefined;
    await until(
      `${jobs} executions for the slot`,
      async () => {
        const n = await scalar<number>(
          db,
          `SELECT count(*)::int AS value FROM executions WHERE trigger = 'SCHEDULE' AND scheduled_for = $1`,
          [slot],
        );
        if (n >= jobs) seenAt = Date.now();
        return n >= jobs;
      },
      120_000 + jobs * 20,
      100,
    );
    const lastCommit = commits.filter((at) => at <= seenAt!).at(-1);
    const allVisibleAt = lastCommit ?? seenAt!;
    log(`herd: all ${jobs} executions committed ${allVisibleAt - slot.getTime()} ms after the slot; draining`);
    await until('the herd to drain', async () => (await unfinished(db)) === 0, 120_000 + jobs * 200, 500);
    const { rows } = await db.query<{
      executions: number;
      distinct_jobs: number;
      failed: number;
      last_created: Date;
      last_finished: Date;
    }>(
      `SELECT count(*)::int AS executions, count(DISTINCT job_id)::int AS distinct_jobs,
              count(*) FILTER (WHERE status <> 'SUCCEEDED')::int AS failed,
              max(created_at) AS last_created, max(finished_at) AS last_finished
         FROM executions WHERE scheduled_for = $1`,
      [slot],
    );
    const r = rows[0]!;
    bench.executionsRun += r.executions;
    const createdLagMs = r.last_created.getTime() - slot.getTime();
    const visibleLagMs = allVisibleAt - slot.getTime();
    const drainSeconds = (r.last_finished.getTime() - slot.getTime()) / 1000;
    const drainRate = r.executions / drainSeconds;
    const comparedWith =
      burstRate !== undefined
        ? { name: 'burst c8 (this run)', rate: burstRate, share: HERD_DRAIN_SHARE_OF_BURST }
        : { name: 'bare Node c8 (no burst in this run)', rate: bareC8!, share: BURST_TARGET_RATIO };
    const drainRatio = drainRate / comparedWith.rate;
    bench.report.figure('herd', {
      jobs,
      slot: slot.toISOString(),
      cron,
      executions: r.executions,
      distinctJobs: r.distinct_jobs,
      failed: r.failed,
      maxCreatedAtMinusSlotMs: createdLagMs,
      allCommittedAfterSlotMs: visibleLagMs,
      committedMeasuredBy: lastCommit === undefined ? 'polling every 100 ms' : 'LISTEN orbit_executions_queued',
      notificationsAfterSlot: commits.filter((at) => at >= slot.getTime() && at <= seenAt!).length,
      drainSeconds,
      drainPerSecond: drainRate,
      comparedWith: comparedWith.name,
      comparedRate: comparedWith.rate,
      drainRatio,
      target: `>= ${comparedWith.share}`,
    });
    bench.report.add({
      scenario: 'herd',
      measure: `${jobs} jobs on one second: executions created`,
      figure: `${r.executions} for ${r.distinct_jobs} jobs`,
      target: `${jobs}, one per job`,
      verdict: verdict(r.executions === jobs && r.distinct_jobs === jobs),
    });
    bench.report.add({
      scenario: 'herd',
      measure: `max(created_at) − slot (the last of them committed at +${visibleLagMs} ms)`,
      figure: `${createdLagMs} ms`,
      target: `≤ ${HERD_CREATED_WITHIN_MS} ms (both)`,
      verdict: verdict(createdLagMs <= HERD_CREATED_WITHIN_MS && visibleLagMs <= HERD_CREATED_WITHIN_MS),
    });
    bench.report.add({
      scenario: 'herd',
      measure: `drain: ${r.executions} / (max(finished_at) − slot = ${drainSeconds.toFixed(1)} s)`,
      figure: perSecond(drainRate) + (r.failed > 0 ? ` (${r.failed} FAILED)` : ''),
      target: `≥ ${comparedWith.share} × ${comparedWith.name} ${perSecond(comparedWith.rate)}`,
      ratio: ratio(drainRatio),
      verdict: verdict(drainRatio >= comparedWith.share && r.failed === 0),
    });
  } finally {
    await listener.end().catch(() => undefined);
    await worker.stop();
    await clearExecutions(db);
    await deleteJobs(db, HERD_PREFIX);
  }
}
