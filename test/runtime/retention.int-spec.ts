import { randomUUID } from 'node:crypto';
import { Logger, LoggerService } from '@nestjs/common';
import { ExecutionRetentionRepository } from '../../src/executions/application/execution-retention.repository.js';
import { PromMetrics } from '../../src/observability/infrastructure/prom-metrics.js';
import { RetentionService } from '../../src/runtime/application/retention.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;
const NOW = new Date('2026-11-30T10:00:00.000Z');
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);

type Status = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

interface Seed {
  status: Status;
  createdAt: Date;
  /** Finished executions: when they finished (default: a minute after creation). */
  finishedAt?: Date;
  /** Makes it a RETRY of that execution. */
  retryOf?: string;
  /** Whether it gets a row in execution_outputs (default: yes). */
  output?: boolean;
}

/** Inserts one execution with the shape its status requires (see the executions_shape_check). */
async function insertExecution(t: TestApp, jobId: string, seed: Seed): Promise<string> {
  const id = randomUUID();
  const { status, createdAt } = seed;
  const finished = status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';
  const finishedAt = finished ? (seed.finishedAt ?? new Date(createdAt.getTime() + MINUTE)) : null;
  // a CANCELLED execution here never started (cancelled while QUEUED)
  const startedAt = status === 'QUEUED' || status === 'CANCELLED' ? null : createdAt;
  const running = status === 'RUNNING';
  await t.db.sql(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
                             scheduled_for, retry_of, due_at, created_at, started_at, finished_at,
                             exit_code, error_message, worker_id, lease_expires_at)
     VALUES ($1, $2, 'echo kept', 1, 60, $3, $4, $5, NULL, $6, $7, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      jobId,
      status,
      seed.retryOf ? 2 : 1,
      seed.retryOf ? 'RETRY' : 'MANUAL',
      seed.retryOf ?? null,
      createdAt,
      startedAt,
      finishedAt,
      status === 'SUCCEEDED' ? 0 : status === 'FAILED' ? 1 : null,
      status === 'FAILED' ? 'exit code 1' : null,
      running ? 'worker-1' : null,
      running ? new Date(NOW.getTime() + MINUTE) : null,
    ],
  );
  if (seed.output !== false) {
    await t.db.sql(
      `INSERT INTO execution_outputs (execution_id, created_at, stdout, stderr, truncated, updated_at)
       VALUES ($1, $4, $2, '', false, $3)`,
      [id, `output of ${id}`, finishedAt ?? createdAt, createdAt],
    );
  }
  return id;
}

/** What a sweep that finds nothing to do answers. */
const NOTHING_DONE = { deleted: 0, daysDropped: 0, daysMade: 0, batches: 1, jobEvents: 0, ms: expect.any(Number) };

/** Never fires, so that the scheduler adds no execution when a test runs the loops. */
const DISABLED = { enabled: false };

/** Every execution row by id, and the ids that have an output row. */
async function snapshot(t: TestApp): Promise<{ rows: Map<string, Record<string, unknown>>; outputs: Set<string> }> {
  const { rows } = await t.db.sql('SELECT * FROM executions');
  const outputs = await t.db.sql('SELECT execution_id FROM execution_outputs');
  return {
    rows: new Map(rows.map((row: Record<string, unknown>) => [row.id as string, row])),
    outputs: new Set(outputs.rows.map((row: { execution_id: string }) => row.execution_id)),
  };
}

const sorted = (ids: Iterable<string>): string[] => [...ids].sort();

/** A retry's row once the execution it retried is gone. */
const unlinked = (row: Record<string, unknown>): Record<string, unknown> => ({ ...row, retry_of: null });

/** Puts `around` around every pruneBatch call of the app; `prune` runs the real one. */
function wrapPruneBatch(t: TestApp, around: (prune: () => Promise<number>) => Promise<number>): void {
  const repository = t.app.get(ExecutionRetentionRepository);
  const original = repository.pruneBatch.bind(repository);
  repository.pruneBatch = (olderThan, keepPerJob, batchSize, createdBefore) =>
    around(() => original(olderThan, keepPerJob, batchSize, createdBefore));
}

describe('the retention sweep (clock driven, no loops running)', () => {
  let t: TestApp | undefined;
  let clock: FakeClock;

  async function start(env: Record<string, string>): Promise<{ t: TestApp; retention: RetentionService }> {
    clock = new FakeClock(NOW);
    t = await createTestApp({ role: 'all', init: false, clock, env });
    return { t, retention: t.app.get(RetentionService) };
  }

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('deletes only finished executions older than the age and beyond the newest M of their job, with their output', async () => {
    const { t, retention } = await start({ ORBIT_RETENTION_DAYS: '30', ORBIT_RETENTION_KEEP_PER_JOB: '3' });
    const add = (jobId: string, seed: Seed) => insertExecution(t, jobId, seed);
    const deletable: string[] = [];
    const kept: string[] = [];

    // A: a mix of ages and statuses, oldest first; the newest 3 are a8, its retry a9 and a QUEUED one
    const a = (await storedJob(t, DISABLED)).id;
    deletable.push(await add(a, { status: 'SUCCEEDED', createdAt: ago(90 * DAY) }));
    deletable.push(await add(a, { status: 'FAILED', createdAt: ago(80 * DAY) }));
    deletable.push(await add(a, { status: 'CANCELLED', createdAt: ago(70 * DAY), output: false }));
    kept.push(await add(a, { status: 'QUEUED', createdAt: ago(60 * DAY) }));
    kept.push(await add(a, { status: 'RUNNING', createdAt: ago(50 * DAY) }));
    // created long ago, but finished only 29 days ago: age counts from the finish
    kept.push(await add(a, { status: 'SUCCEEDED', createdAt: ago(45 * DAY), finishedAt: ago(29 * DAY) }));
    deletable.push(await add(a, { status: 'SUCCEEDED', createdAt: ago(40 * DAY) }));
    // the edge of the age: exactly 30 days stays, a millisecond more goes
    deletable.push(await add(a, { status: 'FAILED', createdAt: ago(35 * DAY), finishedAt: ago(30 * DAY + 1) }));
    kept.push(await add(a, { status: 'SUCCEEDED', createdAt: ago(34 * DAY), finishedAt: ago(30 * DAY) }));
    kept.push(await add(a, { status: 'SUCCEEDED', createdAt: ago(20 * DAY) }));
    const a8 = await add(a, { status: 'FAILED', createdAt: ago(10 * DAY) });
    const a9 = await add(a, { status: 'SUCCEEDED', createdAt: ago(5 * DAY), retryOf: a8 });
    kept.push(a8, a9);
    kept.push(await add(a, { status: 'QUEUED', createdAt: ago(1 * DAY) }));

    // B: all old; its newest 3 stay all the same
    const b = (await storedJob(t, DISABLED)).id;
    deletable.push(await add(b, { status: 'SUCCEEDED', createdAt: ago(200 * DAY) }));
    deletable.push(await add(b, { status: 'FAILED', createdAt: ago(199 * DAY) }));
    kept.push(await add(b, { status: 'CANCELLED', createdAt: ago(198 * DAY) }));
    kept.push(await add(b, { status: 'SUCCEEDED', createdAt: ago(197 * DAY) }));
    kept.push(await add(b, { status: 'FAILED', createdAt: ago(196 * DAY) }));

    // C: fewer than M executions, all old: none goes
    const c = (await storedJob(t, DISABLED)).id;
    kept.push(await add(c, { status: 'SUCCEEDED', createdAt: ago(300 * DAY) }));
    kept.push(await add(c, { status: 'FAILED', createdAt: ago(299 * DAY) }));

    // D: the newest M counts QUEUED and RUNNING executions too
    const d = (await storedJob(t, DISABLED)).id;
    deletable.push(await add(d, { status: 'SUCCEEDED', createdAt: ago(100 * DAY) }));
    deletable.push(await add(d, { status: 'FAILED', createdAt: ago(99 * DAY) }));
    kept.push(await add(d, { status: 'QUEUED', createdAt: ago(98 * DAY) }));
    kept.push(await add(d, { status: 'RUNNING', createdAt: ago(97 * DAY) }));
    kept.push(await add(d, { status: 'SUCCEEDED', createdAt: ago(96 * DAY) }));

    // E: retries outlive the failed executions they retried
    const e = (await storedJob(t, DISABLED)).id;
    const e1 = await add(e, { status: 'FAILED', createdAt: ago(100 * DAY) });
    const e2 = await add(e, { status: 'RUNNING', createdAt: ago(100 * DAY - MINUTE), retryOf: e1 });
    const e3 = await add(e, { status: 'FAILED', createdAt: ago(90 * DAY) });
    const e4 = await add(e, { status: 'SUCCEEDED', createdAt: ago(6 * DAY), retryOf: e3 });
    deletable.push(e1, e3);
    kept.push(e2, e4);
    for (const days of [4, 3, 2]) kept.push(await add(e, { status: 'SUCCEEDED', createdAt: ago(days * DAY) }));

    // F: a deleted job's executions are pruned by the same rule
    const f = (await storedJob(t, DISABLED)).id;
    deletable.push(await add(f, { status: 'SUCCEEDED', createdAt: ago(400 * DAY) }));
    for (const days of [399, 398, 397]) kept.push(await add(f, { status: 'SUCCEEDED', createdAt: ago(days * DAY) }));
    await t.db.sql('UPDATE jobs SET deleted_at = $1 WHERE id = $2', [NOW, f]);

    const before = await snapshot(t);
    expect(before.rows.size).toBe(deletable.length + kept.length);
    expect(before.outputs.size).toBe(before.rows.size - 1);

    expect(await retention.sweep()).toEqual({
      deleted: deletable.length,
      daysDropped: 0,
      daysMade: 0,
      batches: 1,
      jobEvents: 0,
      ms: expect.any(Number),
    });

    const after = await snapshot(t);
    expect(sorted(after.rows.keys())).toEqual(sorted(kept));
    // the outputs of deleted executions went with them; every other one stays
    expect(sorted(after.outputs)).toEqual(sorted(kept));
    // the retries of pruned executions remain, pointing nowhere (their JSON too); nothing else changed
    expect(after.rows.get(e2)).toEqual(unlinked(before.rows.get(e2)!));
    expect(after.rows.get(e4)).toEqual(unlinked(before.rows.get(e4)!));
    for (const id of kept.filter((id) => id !== e2 && id !== e4)) {
      expect(after.rows.get(id)).toEqual(before.rows.get(id));
    }
    expect(after.rows.get(a9)).toMatchObject({ trigger: 'RETRY', retry_of: a8 });

    expect(await retention.sweep()).toEqual(NOTHING_DONE);
    expect(sorted((await snapshot(t)).rows.keys())).toEqual(sorted(kept));
  });

  it('never deletes QUEUED or RUNNING executions, however old, even when no execution is kept per job', async () => {
    const { t, retention } = await start({ ORBIT_RETENTION_DAYS: '1', ORBIT_RETENTION_KEEP_PER_JOB: '0' });
    const active: string[] = [];
    for (let j = 0; j < 3; j++) {
      const job = (await storedJob(t, DISABLED)).id;
      for (let i = 0; i < 4; i++) {
        const createdAt = ago((1000 - 10 * i - j) * DAY);
        active.push(await insertExecution(t, job, { status: 'QUEUED', createdAt }));
        active.push(await insertExecution(t, job, { status: 'RUNNING', createdAt }));
        for (const status of ['SUCCEEDED', 'FAILED', 'CANCELLED'] as const) {
          await insertExecution(t, job, { status, createdAt });
        }
      }
    }

    // ten years on, everything finished is old and none is kept; the week of days the migration
    // made is dropped (empty), and a week from then made
    expect(await retention.sweep(new Date(NOW.getTime() + 3650 * DAY))).toEqual({
      deleted: 36,
      daysDropped: 7,
      daysMade: 8,
      batches: 1,
      jobEvents: 3, // the jobs' creations
      ms: expect.any(Number),
    });
    const after = await snapshot(t);
    expect(sorted(after.rows.keys())).toEqual(sorted(active));
    expect(sorted(after.outputs)).toEqual(sorted(active));
  });

  it('deletes in batches, each committed on its own, until one is not full', async () => {
    const { t, retention } = await start({
      ORBIT_RETENTION_DAYS: '30',
      ORBIT_RETENTION_KEEP_PER_JOB: '2',
      ORBIT_RETENTION_BATCH_SIZE: '7',
    });
    // 12 + 10 + 8 = 30 deletable executions beyond the newest 2 of each job, plus young ones
    for (const old of [14, 12, 10]) {
      const job = (await storedJob(t, DISABLED)).id;
      for (let i = 0; i < old; i++) {
        await insertExecution(t, job, {
          status: i % 3 === 0 ? 'FAILED' : 'SUCCEEDED',
          createdAt: ago((100 - i) * DAY),
        });
      }
    }
    const young = (await storedJob(t, DISABLED)).id;
    for (let i = 0; i < 5; i++) await insertExecution(t, young, { status: 'SUCCEEDED', createdAt: ago(i * DAY) });
    const count = async (): Promise<number> =>
      Number((await t.db.sql('SELECT count(*) FROM executions')).rows[0].count);
    expect(await count()).toBe(41);

    // after every batch another connection sees its rows gone: no transaction spans the sweep
    const counts: number[] = [];
    const seenAfterBatch: number[] = [];
    wrapPruneBatch(t, async (prune) => {
      const deleted = await prune();
      counts.push(deleted);
      seenAfterBatch.push(await count());
      return deleted;
    });

    expect(await retention.sweep()).toEqual({
      deleted: 30,
      daysDropped: 0,
      daysMade: 0,
      batches: 5,
      jobEvents: 0,
      ms: expect.any(Number),
    });
    expect(counts).toEqual([7, 7, 7, 7, 2]);
    expect(seenAfterBatch).toEqual([34, 27, 20, 13, 11]);

    expect(await retention.sweep()).toEqual(NOTHING_DONE);
    expect(counts).toEqual([7, 7, 7, 7, 2, 0]);
    expect(await count()).toBe(11);
  });

  it('logs the figures of a sweep that deleted something, and at debug level only one that did not', async () => {
    const { t, retention } = await start({ ORBIT_RETENTION_DAYS: '30', ORBIT_RETENTION_KEEP_PER_JOB: '1' });
    const job = (await storedJob(t, DISABLED)).id;
    for (const days of [90, 80, 70]) await insertExecution(t, job, { status: 'SUCCEEDED', createdAt: ago(days * DAY) });

    const lines: { level: string; message: string }[] = [];
    const capture = (level: string) => (message: unknown) => void lines.push({ level, message: String(message) });
    const logger: LoggerService = {
      log: capture('log'),
      error: capture('error'),
      warn: capture('warn'),
      debug: capture('debug'),
      verbose: capture('verbose'),
      fatal: capture('fatal'),
    };
    Logger.overrideLogger(logger);
    try {
      const first = await retention.sweep();
      expect(first.deleted).toBe(2);
      await retention.sweep();
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines).toEqual([
      {
        level: 'log',
        message: expect.stringMatching(
          /^Retention: deleted 2 executions older than 30 days \(beyond the newest 1 per job; 0 days dropped whole, the rest in 1 batches\), and 0 job events; made 0 days ahead \(\d+ ms\)$/,
        ),
      },
      { level: 'debug', message: expect.stringMatching(/^Retention: deleted 0 executions .* the rest in 1 batches/) },
    ]);
  });
  it("makes the history's days a week ahead, says so on /metrics, and fails the pass (not the runs) when a day cannot be made", async () => {
    const { t, retention } = await start({ ORBIT_RETENTION_DAYS: '30', ORBIT_RETENTION_KEEP_PER_JOB: '0' });
    const later = new Date(NOW.getTime() + 3650 * DAY);
    const today = Date.UTC(later.getUTCFullYear(), later.getUTCMonth(), later.getUTCDate());
    const dayName = (offset: number) => new Date(today + offset * DAY).toISOString().slice(0, 10).replace(/-/g, '');
    // a table in the way of the last day: that day cannot be made
    await t.db.sql(`CREATE TABLE event_log_${dayName(7)} (blocking integer)`);
    const job = (await storedJob(t, DISABLED)).id;
    const old = await insertExecution(t, job, { status: 'SUCCEEDED', createdAt: ago(100 * DAY) });
    clock.set(later);
    await expect(retention.sweep()).rejects.toThrow(/the history's days ahead could not be made: .*already exists/);
    // the rest of the pass was done, and the cluster's retention health says it failed
    expect((await snapshot(t)).rows.has(old)).toBe(false);
    const { rows: health } = await t.db.sql(`SELECT failing_since, last_error FROM retention_health`);
    expect(health).toEqual([{ failing_since: later, last_error: expect.stringContaining('already exists') }]);
    const gauges = async () =>
      (await t.app.get(PromMetrics).registry.metrics()).split('\n').filter((line) => line.startsWith('orbit_history_'));
    // nothing was made (the day-making is one transaction), and the days of ten years before are dropped
    expect(await gauges()).toEqual(['orbit_history_days_ahead 0', 'orbit_history_oldest_day_timestamp_seconds 0']);

    await t.db.sql(`DROP TABLE event_log_${dayName(7)}`);
    await retention.sweep();
    expect(await gauges()).toEqual([
      'orbit_history_days_ahead 7',
      `orbit_history_oldest_day_timestamp_seconds ${today / 1000}`,
    ]);
    const { rows: recovered } = await t.db.sql(`SELECT failing_since FROM retention_health`);
    expect(recovered).toEqual([{ failing_since: null }]);
  });

  it('puts every pass on /metrics, a failed one too, which leaves the last success as it was', async () => {
    const { t, retention } = await start({ ORBIT_RETENTION_DAYS: '30', ORBIT_RETENTION_KEEP_PER_JOB: '1' });
    const job = (await storedJob(t, DISABLED)).id;
    for (const days of [90, 80, 70]) await insertExecution(t, job, { status: 'SUCCEEDED', createdAt: ago(days * DAY) });
    const retentionLines = async () =>
      (await t.app.get(PromMetrics).registry.metrics())
        .split('\n')
        .filter((line) => line.startsWith('orbit_retention_') && !line.includes('duration'));
    const durationOf = async () =>
      Number(
        (await t.app.get(PromMetrics).registry.metrics()).match(
          /^orbit_retention_last_pass_duration_seconds (\S+)$/m,
        )?.[1],
      );
    const oldestKept = (days: number) =>
      `orbit_retention_oldest_kept_timestamp_seconds ${ago(days * DAY).getTime() / 1000}`;
    expect(await retentionLines()).toEqual([
      'orbit_retention_last_success_timestamp_seconds 0',
      oldestKept(90),
      'orbit_retention_behind_seconds 0',
    ]);

    await retention.sweep();
    expect(await retentionLines()).toEqual([
      'orbit_retention_passes_total{outcome="success"} 1',
      'orbit_retention_deleted_total{kind="executions"} 2',
      'orbit_retention_deleted_total{kind="job_events"} 0',
      `orbit_retention_last_success_timestamp_seconds ${NOW.getTime() / 1000}`,
      oldestKept(70),
      'orbit_retention_behind_seconds 0',
    ]);
    expect(await durationOf()).toBeGreaterThan(0);

    clock.advance(10 * MINUTE);
    wrapPruneBatch(t, () => Promise.reject(new Error('the database went away')));
    await expect(retention.sweep()).rejects.toThrow('the database went away');
    expect(await retentionLines()).toEqual([
      'orbit_retention_passes_total{outcome="success"} 1',
      'orbit_retention_passes_total{outcome="failure"} 1',
      'orbit_retention_deleted_total{kind="executions"} 2',
      'orbit_retention_deleted_total{kind="job_events"} 0',
      `orbit_retention_last_success_timestamp_seconds ${NOW.getTime() / 1000}`,
      oldestKept(70),
      'orbit_retention_behind_seconds 0',
    ]);
  });
});

describe('the retention sweep on its timer', () => {
  it('sweeps soon after start and again every interval, and shutdown waits for a running sweep', async () => {
    const clock = new FakeClock(NOW);
    const t = await createTestApp({
      role: 'all',
      clock,
      env: { ORBIT_RETENTION_KEEP_PER_JOB: '0', ORBIT_RETENTION_INTERVAL_SECONDS: '1' },
    });
    let closed = false;
    try {
      const job = (await storedJob(t, DISABLED)).id;
      const old = await insertExecution(t, job, { status: 'SUCCEEDED', createdAt: ago(40 * DAY) });
      const remaining = async (): Promise<string[]> =>
        (await t.db.sql('SELECT id FROM executions WHERE job_id = $1', [job])).rows.map((r: { id: string }) => r.id);
      await waitFor(async () => ((await remaining()).length === 0 ? true : undefined), 'the first sweep', 5_000);

      expect(await remaining()).not.toContain(old);

      // a young execution survives the sweeps of the next intervals, and goes once it has aged
      let sweeps = 0;
      wrapPruneBatch(t, (prune) => {
        sweeps++;
        return prune();
      });
      const later = await insertExecution(t, job, { status: 'FAILED', createdAt: ago(MINUTE) });
      await waitFor(() => (sweeps >= 2 ? true : undefined), 'two more sweeps', 5_000);
      expect(await remaining()).toEqual([later]);
      clock.set(new Date(NOW.getTime() + 31 * DAY));
      await waitFor(async () => ((await remaining()).length === 0 ? true : undefined), 'a later sweep', 5_000);

      // shutdown while a sweep is held up mid-batch: close() returns only after it finished
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered = false;
      let finished = false;
      wrapPruneBatch(t, async (prune) => {
        entered = true;
        await held;
        const count = await prune();
        finished = true;
        return count;
      });
      await waitFor(() => (entered ? true : undefined), 'a sweep to start', 5_000);
      const closing = t.close().then(() => (closed = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(closed).toBe(false);
      release();
      await closing;
      expect(finished).toBe(true);
    } finally {
      if (!closed) await t.close();
    }
  });
});
