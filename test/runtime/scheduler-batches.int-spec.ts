import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import { ExecutionMetrics } from '../../src/executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import { Job } from '../../src/jobs/domain/job.js';
import { ConcurrencyPolicy } from '../../src/jobs/domain/job-policies.js';
import { JOBS_PER_PASS, SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { FakeClock } from '../support/fake-clock.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { waitFor } from '../support/wait.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const T0 = new Date('2026-11-30T10:00:00.000Z');
/** When the seeded jobs were created and last changed. */
const CREATED = new Date('2026-11-29T10:00:00.000Z');

const plus = (instant: Date, ms: number) => new Date(instant.getTime() + ms);
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

let seeded = 0;
/**
 * Inserts `count` enabled jobs in one statement, each with its own command, due first at
 * `nextRunAt` (the caller passes a slot of `cron`); returns their ids.
 */
async function seedJobs(db: TestDatabase, count: number, cron: string, nextRunAt: Date): Promise<string[]> {
  const prefix = `seeded-${++seeded}-`;
  const { rows } = await db.sql(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, next_run_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1 || i, 'echo ' || $1 || i, $2, 'UTC', i % 3, 30 + i, true, 'RUN_ONCE', 'ALLOW', $3, $4, $4
       FROM generate_series(1, $5) AS i
     RETURNING id`,
    [prefix, cron, nextRunAt, CREATED, count],
  );
  return rows.map((row: { id: string }) => row.id);
}

describe('scheduler passes in batches', () => {
  let t: TestApp;
  let scheduler: SchedulerService;

  beforeEach(async () => {
    t = await createTestApp({ role: 'all', init: false, clock: new FakeClock(T0) });
    scheduler = t.app.get(SchedulerService);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('a backlog larger than one pass fires each job once over successive passes, copying each job', async () => {
    const count = JOBS_PER_PASS + 37;
    const slot = plus(T0, MINUTE);
    await seedJobs(t.db, count, '* * * * *', slot);

    expect(await scheduler.pass(slot)).toEqual({ jobs: JOBS_PER_PASS, fired: JOBS_PER_PASS });
    expect(await scheduler.pass(slot)).toEqual({ jobs: 37, fired: 37 });
    expect(await scheduler.pass(slot)).toEqual({ jobs: 0, fired: 0 });

    const { rows } = await t.db.sql(
      `SELECT count(*)::int AS executions, count(DISTINCT e.job_id)::int AS jobs,
              count(*) FILTER (WHERE e.command = j.command AND e.max_retries = j.max_retries
                AND e.timeout_seconds = j.timeout_seconds AND e.trigger = 'SCHEDULE' AND e.status = 'QUEUED'
                AND e.attempt = 1 AND e.scheduled_for = $1 AND e.due_at = $1 AND e.created_at = $1)::int AS copies
         FROM executions e JOIN jobs j ON j.id = e.job_id`,
      [slot],
    );
    expect(rows[0]).toEqual({ executions: count, jobs: count, copies: count });
    // the schedule moved on without a new version, a new updatedAt or a change notification
    const moved = await t.db.sql(
      `SELECT count(*)::int AS n FROM jobs WHERE next_run_at = $1 AND updated_at = $2 AND version = 1`,
      [plus(slot, MINUTE), CREATED],
    );
    expect(moved.rows[0].n).toBe(count);
  });

  it('the loop works off a backlog of several passes two at a time, firing each job once', async () => {
    const count = 2 * JOBS_PER_PASS + 123;
    await seedJobs(t.db, count, '* * * * *', T0);
    const pass = scheduler.pass.bind(scheduler);
    let running = 0;
    let most = 0;
    jest.spyOn(scheduler, 'pass').mockImplementation(async (now) => {
      most = Math.max(most, ++running);
      try {
        return await pass(now);
      } finally {
        running--;
      }
    });

    // the loop's own round (private): every lane passes until the backlog is gone
    const passes = (scheduler as unknown as { passes(): Promise<Date | null> }).passes.bind(scheduler);
    expect(await passes()).toEqual(plus(T0, MINUTE - t.config.scheduleLeadMs)); // the next slot, the lead before it

    expect(most).toBe(2);
    const { rows } = await t.db.sql(
      `SELECT count(*)::int AS executions, count(DISTINCT job_id)::int AS jobs FROM executions WHERE scheduled_for = $1`,
      [T0],
    );
    expect(rows[0]).toEqual({ executions: count, jobs: count });
  });

  it.each([10, 300])('a pass over %i ALLOW jobs takes three statements: lock, insert, update', async (count) => {
    const slot = plus(T0, MINUTE);
    await seedJobs(t.db, count, '* * * * *', slot);
    const statements = jest.spyOn(t.app.get(Database), 'rows');

    expect(await scheduler.pass(slot)).toEqual({ jobs: count, fired: count });
    expect(statements).toHaveBeenCalledTimes(3);
  });

  it("moving the jobs' next slots wakes no node; a change of a job does", async () => {
    const slot = plus(T0, MINUTE);
    const [first] = await seedJobs(t.db, 50, '* * * * *', slot);
    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    try {
      const notified: string[] = [];
      listener.on('notification', (n) => notified.push(n.channel));
      await listener.query('LISTEN orbit_jobs_changed');

      expect(await scheduler.pass(slot)).toEqual({ jobs: 50, fired: 50 });
      // notifications arrive in commit order: one of the pass would come before this one
      await t.db.sql('UPDATE jobs SET updated_at = now() WHERE id = $1', [first]);
      await waitFor(() => (notified.length > 0 ? true : undefined), 'the notification of the change');
      await listener.query('SELECT 1');
      expect(notified).toEqual(['orbit_jobs_changed']);
    } finally {
      await listener.end();
    }
  });

  describe('a pass mixing overlap policies', () => {
    const PER_POLICY = 4;

    async function createJobs(policy: ConcurrencyPolicy): Promise<Job[]> {
      return Promise.all(
        range(PER_POLICY).map(() =>
          storedJob(t, { command: 'echo tick', cronExpression: '* * * * *', concurrencyPolicy: policy }),
        ),
      );
    }

    async function statusesOf(jobs: Job[]): Promise<string[][]> {
      const result: string[][] = [];
      for (const job of jobs) {
        const { rows } = await t.db.sql('SELECT status FROM executions WHERE job_id = $1 ORDER BY scheduled_for', [
          job.id,
        ]);
        result.push(rows.map((row: { status: string }) => row.status));
      }
      return result;
    }

    it('ALLOW fires beside the earlier run, FORBID skips while one is active, REPLACE cancels it', async () => {
      const allow = await createJobs('ALLOW');
      const forbid = await createJobs('FORBID');
      const replace = await createJobs('REPLACE');
      const first = allow[0]!.nextRunAt!;
      const second = plus(first, MINUTE);

      expect(await scheduler.pass(first)).toEqual({ jobs: 3 * PER_POLICY, fired: 3 * PER_POLICY });
      // one earlier run of each guarded policy is RUNNING, the others still QUEUED
      const executions = t.app.get(ExecutionsService);
      for (const job of [forbid[0]!, replace[0]!]) {
        const { rows } = await t.db.sql('SELECT id FROM executions WHERE job_id = $1', [job.id]);
        await executions.start(rows[0].id as string);
      }

      const skipped = jest.spyOn(t.app.get(ExecutionMetrics), 'fireSkipped');
      const logged = jest.spyOn(Logger.prototype, 'log');
      expect(await scheduler.pass(second)).toEqual({ jobs: 3 * PER_POLICY, fired: 2 * PER_POLICY });

      expect(await statusesOf(allow)).toEqual(range(PER_POLICY).map(() => ['QUEUED', 'QUEUED']));
      expect(await statusesOf(forbid)).toEqual(range(PER_POLICY).map((i) => [i === 0 ? 'RUNNING' : 'QUEUED']));
      expect(await statusesOf(replace)).toEqual(range(PER_POLICY).map(() => ['CANCELLED', 'QUEUED']));
      expect(skipped).toHaveBeenCalledTimes(PER_POLICY);

      const messages = logged.mock.calls.map(([line]) => (line as { msg: string }).msg);
      const forbidLines = messages.filter((msg) => msg.endsWith('(FORBID)'));
      const replaceLines = messages.filter((msg) => msg.endsWith('(REPLACE)'));
      expect(forbidLines).toHaveLength(PER_POLICY);
      expect(forbidLines).toContain(
        `Job ${forbid[0]!.name}: slot ${second.toISOString()} skipped, the earlier execution is still RUNNING (FORBID)`,
      );
      expect(replaceLines).toHaveLength(PER_POLICY);
      expect(replaceLines).toContain(
        `Job ${replace[1]!.name}: cancelling the earlier execution for slot ${second.toISOString()} (REPLACE)`,
      );

      const { rows } = await t.db.sql(`SELECT count(*)::int AS n FROM jobs WHERE next_run_at = $1`, [
        plus(second, MINUTE),
      ]);
      expect(rows[0].n).toBe(3 * PER_POLICY);
    });
  });

  describe('insertAll skipping taken slots', () => {
    let job: Job;
    let repository: ExecutionRepository;
    const scheduled = (slot: Date) =>
      Execution.forJob(job, T0, { trigger: 'SCHEDULE', scheduledFor: slot, dueAt: slot });
    const slots = range(4).map((i) => plus(T0, (i + 1) * MINUTE));

    beforeEach(async () => {
      job = await t.app.get(JobsService).create({ name: 'many', command: 'echo many', cronExpression: '* * * * *' });
      repository = t.app.get(ExecutionRepository);
    });

    it('inserts the executions whose (job, slot) is new, skips the others, and counts what it inserted', async () => {
      const [s1, s2, s3] = slots as [Date, Date, Date];
      await expect(repository.insertAll([scheduled(s1)])).resolves.toBe(1);

      const batch = [scheduled(s1), scheduled(s2), scheduled(s3), scheduled(s2)];
      await expect(repository.insertAll(batch)).resolves.toBe(2);
      await expect(repository.insertAll([])).resolves.toBe(0);

      const { rows } = await t.db.sql(
        'SELECT id, scheduled_for FROM executions WHERE job_id = $1 ORDER BY scheduled_for',
        [job.id],
      );
      expect(rows.map((row: { scheduled_for: Date }) => row.scheduled_for)).toEqual([s1, s2, s3]);
      // what is stored is what the domain built, field for field
      for (const execution of [batch[1]!, batch[2]!]) {
        expect((await repository.findById(execution.id))?.toProps()).toEqual(execution.toProps());
      }
      expect(await repository.findById(batch[0]!.id)).toBeNull();
      expect(await repository.findById(batch[3]!.id)).toBeNull();
    });

    it('skips only a taken (job, slot): any other conflict fails the whole statement', async () => {
      const [s1, s2, s3] = slots as [Date, Date, Date];
      const stored = scheduled(s1);
      await repository.insertAll([stored]);
      const sameId = Execution.restore({ ...stored.toProps(), scheduledFor: s2, dueAt: s2 });

      await expect(repository.insertAll([scheduled(s3), sameId])).rejects.toMatchObject({
        code: '23505',
        constraint: 'executions_pkey',
      });
      const { rows } = await t.db.sql('SELECT count(*)::int AS n FROM executions WHERE job_id = $1', [job.id]);
      expect(rows[0].n).toBe(1);
    });
  });
});

describe('two schedulers racing over one database', () => {
  const JOBS = 300;
  let db: TestDatabase;
  const nodes: SchedulerService[] = [];
  const apps: TestApp[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const _ of range(2)) {
      const app = await createTestApp({ role: 'all', init: false, clock: new FakeClock(T0), db });
      apps.push(app);
      nodes.push(app.app.get(SchedulerService));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  it(`over ${JOBS} jobs, they fire exactly one execution per (job, slot), none missing`, async () => {
    const [a, b] = nodes as [SchedulerService, SchedulerService];
    await seedJobs(db, JOBS, '* * * * * *', plus(T0, SECOND));
    const at = (seconds: number) => plus(T0, seconds * SECOND);

    let fired = 0;
    const count = async (passes: Promise<{ fired: number }>[]) => {
      for (const result of await Promise.all(passes)) fired += result.fired;
    };
    for (const s of range(5)) await count([a.pass(at(s + 1)), b.pass(at(s + 1)), a.pass(at(s + 1)), b.pass(at(s + 1))]);
    // passes at different instants: whoever locks a job first catches up its slots up to its own now
    await count([a.pass(at(8)), b.pass(at(7)), b.pass(at(6)), a.pass(at(7))]);
    await count([a.pass(at(8)), b.pass(at(8))]);

    const slots = 8;
    expect(fired).toBe(JOBS * slots);
    const { rows } = await db.sql(
      `SELECT count(*)::int AS executions, count(DISTINCT (job_id, scheduled_for))::int AS pairs,
              min(scheduled_for) AS first, max(scheduled_for) AS last
         FROM executions WHERE trigger = 'SCHEDULE'`,
    );
    expect(rows[0]).toEqual({ executions: JOBS * slots, pairs: JOBS * slots, first: at(1), last: at(slots) });
    const next = await db.sql('SELECT count(*)::int AS n FROM jobs WHERE next_run_at = $1', [at(slots + 1)]);
    expect(next.rows[0].n).toBe(JOBS);
  });
});
