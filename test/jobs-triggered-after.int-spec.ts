import { JobRepository } from '../src/jobs/application/job.repository.js';
import { Job } from '../src/jobs/domain/job.js';
import { JobTriggerInput } from '../src/jobs/domain/job-triggers.js';
import { FakeClock } from './support/fake-clock.js';
import { createTestApp, TestApp } from './support/test-app.js';

const T0 = new Date('2026-12-01T10:00:00.000Z');

/**
 * Which jobs follow the final runs of a batch: asked by the chains consumer for every batch, so
 * it must not read the triggers of every job (the herd's thousands of unchained ones).
 */
describe('the jobs triggered after some upstream jobs', () => {
  let t: TestApp;
  let jobs: JobRepository;

  beforeAll(async () => {
    t = await createTestApp({ clock: new FakeClock(T0) });
    jobs = t.app.get(JobRepository);
    await t.db.sql(
      `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
         misfire_policy, concurrency_policy, created_at, updated_at)
       SELECT gen_random_uuid(), 'plain-' || g, 'true', '0 0 1 1 *', 'UTC', 0, 60, true, 'RUN_ONCE', 'ALLOW', now(), now()
         FROM generate_series(1, 3000) AS g`,
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
    await t.db.sql('ANALYZE jobs');
  });

  afterAll(async () => {
    await t?.close();
  });

  const names = async (upstream: string[]) => (await jobs.triggeredAfter(upstream)).map((job) => job.name);

  it('finds each live job naming one of them, once, by name, whatever its other triggers', async () => {
    expect(await names(['up-a'])).toEqual(['after-a', 'after-a-or-b']);
    expect(await names(['up-b', 'up-a', 'up-c'])).toEqual(['after-a', 'after-a-or-b', 'after-c']);
    expect(await names([`it's "up"`])).toEqual(['after-quoted']);
    expect(await names(['plain-1', 'up'])).toEqual([]);
    expect(await names([])).toEqual([]);
  });

  it('reads the chained jobs index, a few pages, not the triggers of every job', async () => {
    const { rows } = await t.db.sql(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       SELECT id FROM jobs WHERE deleted_at IS NULL AND triggers <> '[]'::jsonb
          AND triggers @> ANY (ARRAY(SELECT jsonb_build_array(jsonb_build_object('after', n)) FROM unnest($1::text[]) AS n))`,
      [['up-a', 'up-b']],
    );
    type Node = {
      'Node Type': string;
      'Shared Hit Blocks': number;
      'Shared Read Blocks': number;
      'Actual Rows': number;
    };
    const plan = (rows[0] as { 'QUERY PLAN': [{ Plan: Node }] })['QUERY PLAN'][0].Plan;
    expect(JSON.stringify(plan)).toContain('jobs_triggered_after_idx');
    expect(plan['Actual Rows']).toBe(2);
    expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(20);
  });
});
