import { JobRepository } from '../../src/jobs/application/job.repository.js';
import { Job } from '../../src/jobs/domain/job.js';
import { JobTriggerInput } from '../../src/jobs/domain/job-triggers.js';
import {
  ANY_TRIGGERED,
  DUE_LATE_WATCHES,
  EARLIEST_NEXT_RUN,
  TRIGGERED_AFTER,
} from '../../src/jobs/infrastructure/sql-job.repository.js';
import { FakeClock } from '../support/fake-clock.js';
import { planCost } from '../support/plan-cost.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const T0 = new Date('2026-12-01T10:00:00.000Z');
const LEAD_MS = 500;

/**
 * Reads the runtime makes again and again (per batch of final runs, per scheduler wake, per
 * overdue sweep) are about a few jobs: a chained one, a guarded one, a late-watched one. Beside
 * 3,000 jobs that are none of those, they read a few pages, not every job. Counted in buffers,
 * which no machine's speed changes.
 */
describe('reads about a few jobs among thousands', () => {
  let t: TestApp;
  let jobs: JobRepository;

  beforeAll(async () => {
    t = await createTestApp({ clock: new FakeClock(T0) });
    jobs = t.app.get(JobRepository);
    await t.db.sql(
      `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
         misfire_policy, concurrency_policy, next_run_at, created_at, updated_at)
       SELECT gen_random_uuid(), 'plain-' || g, 'true', '0 0 1 1 *', 'UTC', 0, 60, true, 'RUN_ONCE', 'ALLOW',
              $1::timestamptz + interval '1 hour', now(), now()
         FROM generate_series(1, 3000) AS g`,
      [T0],
    );
    const chained = async (name: string, triggers: JobTriggerInput[]) => {
      const job = Job.create({ name, command: 'true', cronExpression: null, maxRetries: 0, triggers }, T0);
      await jobs.insert(job);
      return job;
    };
    await chained('after-a', [{ after: 'up-a' }]);
    await chained('after-a-or-b', [
      { after: 'up-b', on: ['FAILED'] },
      { after: 'up-a', on: ['SUCCEEDED', 'FAILED'] },
    ]);
    await chained('after-quoted', [{ after: `it's "up"` }]);
    await chained('after-c', [{ after: 'up-c' }]);
    const gone = await chained('after-a-deleted', [{ after: 'up-a' }]);
    await t.db.sql('UPDATE jobs SET deleted_at = now() WHERE id = $1', [gone.id]);
    // one FORBID job due in 30 minutes
    await t.db.sql(`UPDATE jobs SET concurrency_policy = 'FORBID', next_run_at = $1 WHERE name = 'plain-7'`, [
      new Date(T0.getTime() + 30 * 60_000),
    ]);
    await t.db.sql('ANALYZE jobs');
  });

  afterAll(async () => {
    await t?.close();
  });

  const cost = (statement: string, params: unknown[] = []) => planCost(t.db.sql, statement, params);

  const names = async (upstream: string[]) => (await jobs.triggeredAfter(upstream)).map((job) => job.name);

  it('finds each live job triggered after one of some names, once, by name, whatever its other triggers', async () => {
    expect(await names(['up-a'])).toEqual(['after-a', 'after-a-or-b']);
    expect(await names(['up-b', 'up-a', 'up-c'])).toEqual(['after-a', 'after-a-or-b', 'after-c']);
    expect(await names([`it's "up"`])).toEqual(['after-quoted']);
    expect(await names(['plain-1', 'up'])).toEqual([]);
    expect(await names([])).toEqual([]);
  });

  it('finds them in the index of chained jobs, not in the triggers of every job', async () => {
    const read = await cost(TRIGGERED_AFTER, [['up-a', 'up-b']]);
    expect(read.rows).toBe(2);
    expect(read.buffers).toBeLessThan(20);
  });

  it('tells whether any live job has a trigger from the index of chained jobs, also when none has one', async () => {
    expect(await jobs.anyTriggered()).toBe(true);
    expect((await cost(ANY_TRIGGERED)).buffers).toBeLessThan(5);
    const { rows: chained } = await t.db.sql(
      `UPDATE jobs SET deleted_at = now() WHERE deleted_at IS NULL AND triggers <> '[]' RETURNING id`,
    );
    try {
      expect(await jobs.anyTriggered()).toBe(false);
      const none = await cost(ANY_TRIGGERED);
      expect(none.rows).toBe(0);
      expect(none.buffers).toBeLessThan(5);
    } finally {
      await t.db.sql('UPDATE jobs SET deleted_at = NULL WHERE id = ANY ($1::uuid[])', [chained.map((row) => row.id)]);
    }
  });

  it('wakes the scheduler for the earliest of an ALLOW slot less the lead and a FORBID slot', async () => {
    expect(await jobs.earliestNextRun(LEAD_MS)).toEqual(new Date(T0.getTime() + 30 * 60_000));
    expect(await jobs.earliestNextRun(40 * 60_000)).toEqual(new Date(T0.getTime() + 20 * 60_000));
    const read = await cost(EARLIEST_NEXT_RUN, [LEAD_MS]);
    expect(read.buffers).toBeLessThan(20);
  });

  it('joins the due late watches to the few jobs that have a late policy, also when no job has one', async () => {
    const none = await cost(DUE_LATE_WATCHES, [T0, 200]);
    expect(none.rows).toBe(0);
    expect(none.buffers).toBeLessThan(20);

    await t.db.sql(`UPDATE jobs SET late_after_seconds = 60 WHERE name = 'plain-8'`);
    // the jobs trigger keeps its watch; due now
    await t.db.sql(
      `UPDATE job_late_watches SET due_at = $1 WHERE job_id = (SELECT id FROM jobs WHERE name = 'plain-8')`,
      [T0],
    );
    await t.db.sql('ANALYZE jobs');
    const read = await cost(DUE_LATE_WATCHES, [T0, 200]);
    expect(read.rows).toBe(1);
    expect(read.buffers).toBeLessThan(20);
  });
});
