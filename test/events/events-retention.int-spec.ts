import { randomUUID } from 'node:crypto';
import { RetentionService } from '../../src/runtime/application/retention.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { insertJob } from '../support/test-database.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-30T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe('retention prunes events with their executions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      init: false,
      clock: new FakeClock(NOW),
      env: { ORBIT_RETENTION_DAYS: '7', ORBIT_RETENTION_KEEP_PER_JOB: '1', ORBIT_RETENTION_BATCH_SIZE: '2' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An execution queued, run and succeeded `at` (three events). */
  async function execution(jobId: string, at: Date): Promise<string> {
    const id = randomUUID();
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $3, $3)`,
      [id, jobId, at],
    );
    await t.db.sql(`UPDATE executions SET status = 'RUNNING', started_at = $2, worker_id = 'w' WHERE id = $1`, [
      id,
      at,
    ]);
    await t.db.sql(`UPDATE executions SET status = 'SUCCEEDED', finished_at = $2, exit_code = 0 WHERE id = $1`, [
      id,
      at,
    ]);
    return id;
  }
  const eventsOf = async (column: 'execution_id' | 'job_id', id: string) =>
    (await t.db.sql(`SELECT type FROM events WHERE ${column} = $1 ORDER BY seq`, [id])).rows.map((r) => r.type);

  it("deletes a pruned execution's events in its batch, keeps the kept ones', and ages out old job events", async () => {
    const old = await insertJob(t.db, { name: randomUUID(), createdAt: ago(30 * DAY) });
    const pruned = [await execution(old, ago(20 * DAY)), await execution(old, ago(19 * DAY))];
    const keptOld = await execution(old, ago(18 * DAY)); // the newest of its job: kept
    const recent = await insertJob(t.db, { name: randomUUID(), createdAt: ago(DAY) });
    await t.db.sql(`UPDATE jobs SET enabled = true, updated_at = $2 WHERE id = $1`, [old, ago(DAY)]);

    const result = await t.app.get(RetentionService).sweep();

    expect(result).toMatchObject({ deleted: 2, jobEvents: 1 });
    for (const id of pruned) expect(await eventsOf('execution_id', id)).toEqual([]);
    expect(await eventsOf('execution_id', keptOld)).toEqual([
      'execution.queued',
      'execution.running',
      'execution.succeeded',
    ]);
    expect((await eventsOf('job_id', old)).filter((type) => type.startsWith('job.'))).toEqual(['job.resumed']);
    expect(await eventsOf('job_id', recent)).toEqual(['job.created']);
  });

  it('SQL that deletes an execution by hand takes its events too', async () => {
    const id = await execution(await insertJob(t.db, { name: randomUUID(), createdAt: NOW }), NOW);
    await t.db.sql('DELETE FROM executions WHERE id = $1', [id]);
    expect(await eventsOf('execution_id', id)).toEqual([]);
  });
});
