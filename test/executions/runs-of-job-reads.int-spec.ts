import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ExecutionFilter } from '../../src/executions/application/execution-read-model.js';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import {
  QUEUED_JOB_BY_JOB,
  SqlExecutionReadModel,
} from '../../src/executions/infrastructure/sql-execution-read-model.js';
import { SqlExecutionRepository } from '../../src/executions/infrastructure/sql-execution.repository.js';
import { SqlJobHistory } from '../../src/executions/infrastructure/sql-job-history.js';
import { SqlReplacingRuns } from '../../src/executions/infrastructure/sql-replacing-runs.js';
import { decodeCursor } from '../../src/shared/application/page.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { closeMigratable, migratableDatabase } from '../support/migrations.js';
import { runBySql } from '../support/runs-by-sql.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const T0 = new Date('2026-12-01T03:00:05.000Z');
/** Another job's runs waiting in the queue, and running. */
const BACKLOG = 20_000;
const OTHERS_RUNNING = 200;
/** The job's own: queued, running, and finished runs. */
const MINE = { queued: 4, running: 2, finished: 10 };

type Node = { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };

/**
 * A Database that explains each statement after it sends it (the first run reads what it calls
 * into the session's caches), keeping the buffers each touched. One connection: both runs share it.
 */
class ExplainingDatabase extends Database {
  readonly buffers: number[] = [];

  override async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const rows = await super.rows<T>(sql, params);
    const [explained] = await super.rows<{ 'QUERY PLAN': [{ Plan: Node }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
      params,
    );
    const plan = explained!['QUERY PLAN'][0].Plan;
    this.buffers.push(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']);
    return rows;
  }
}

/**
 * The queue partition holds its queued runs and its running ones in an index by job each, so a
 * read of a job's runs names each status's part: none reads the queue whole, however many runs
 * of other jobs wait in it. Counted in buffers, which no machine's speed changes.
 */
describe("a job's runs, read by index behind another job's backlog", () => {
  let db: TestDatabase;
  let source: DataSource;
  let explaining: ExplainingDatabase;
  const jobId = randomUUID();
  const newestFirst: string[] = [];

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    explaining = new ExplainingDatabase(source);
    await insertJob(db, { id: jobId, name: 'mine' });
    const other = await insertJob(db, { id: randomUUID(), name: 'backlog' });
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $3, $3 FROM generate_series(1, $2)`,
      [other, BACKLOG, T0],
    );
    await db.sql(
      `UPDATE executions SET status = 'RUNNING', started_at = $2, worker_id = 'w2', lease_expires_at = $2::timestamptz + interval '1 min'
        WHERE id IN (SELECT id FROM executions WHERE job_id = $1 AND status = 'QUEUED' LIMIT $3)`,
      [other, T0, OTHERS_RUNNING],
    );
    const runs = (order: number) => runBySql(() => db, new Date(T0.getTime() + order * 60_000));
    let order = 0;
    for (let i = 0; i < MINE.finished; i++) {
      const { queue, start, finish } = runs(order++);
      const id = await queue(jobId);
      await start(id);
      await finish(id);
      newestFirst.unshift(id);
    }
    for (let i = 0; i < MINE.running + MINE.queued; i++) {
      const { queue, start } = runs(order++);
      const id = await queue(jobId);
      if (i < MINE.running) await start(id);
      newestFirst.unshift(id);
    }
    await db.sql('VACUUM ANALYZE executions');
    const { rows } = await db.sql(
      `SELECT count(*)::int AS days FROM pg_inherits WHERE inhparent = 'executions_history'::regclass`,
    );
    few = 30 + 2 * (rows[0] as { days: number }).days;
  }, 60_000);
  afterAll(() => closeMigratable(db, source));

  /** What `read` answered, and the most buffers one of its statements touched. */
  const measured = async <T>(read: () => Promise<T>): Promise<{ answer: T; buffers: number }> => {
    explaining.buffers.length = 0;
    const answer = await read();
    return { answer, buffers: Math.max(...explaining.buffers) };
  };
  /**
   * Far fewer than the queue partition's pages (about 500): a few index pages and the job's rows,
   * and a page or two of each day of the history's index by job.
   */
  let few: number;

  it('the queue is bigger than a read may touch', async () => {
    const { rows } = await db.sql(`SELECT relpages FROM pg_class WHERE relname = 'executions_active'`);
    expect(rows[0].relpages).toBeGreaterThan(3 * few);
  });

  it('the list of its runs: every status, newest first', async () => {
    const reads = new SqlExecutionReadModel(explaining);
    const { answer, buffers } = await measured(() => reads.listJson({ jobId }, { limit: 50 }));
    expect(answer.items.map((json) => (JSON.parse(json) as { id: string }).id)).toEqual(newestFirst);
    expect(buffers).toBeLessThan(few);
    const running = await measured(() => reads.listJson({ jobId, status: 'RUNNING' as never }, { limit: 50 }));
    expect(running.answer.items).toHaveLength(MINE.running);
    expect(running.buffers).toBeLessThan(few);
  });

  it('its last run, and its counts since an instant', async () => {
    const history = new SqlJobHistory(explaining);
    const last = await measured(() => history.lastExecutions([jobId]));
    expect(last.answer.get(jobId)).toMatchObject({ id: newestFirst[0], status: 'QUEUED' });
    expect(last.buffers).toBeLessThan(few);
    const stats = await measured(() => history.executionStats(jobId, T0));
    expect(stats.answer.counts).toEqual({ QUEUED: MINE.queued, RUNNING: MINE.running, SUCCEEDED: MINE.finished });
    expect(stats.buffers).toBeLessThan(few);
  });

  it('its runs that may be cancelled, read and locked', async () => {
    const executions = new SqlExecutionRepository(explaining);
    const read = await measured(() => executions.findActiveByJob(jobId));
    expect(read.answer.map((run) => run.id).sort()).toEqual(newestFirst.slice(0, MINE.queued + MINE.running).sort());
    expect(read.buffers).toBeLessThan(few);
    const locked = await measured(() => explaining.run(() => executions.findActiveByJob(jobId)));
    expect(locked.answer).toHaveLength(MINE.queued + MINE.running);
    expect(locked.buffers).toBeLessThan(few);
  });

  /** The ids of a page of the newest runs of all, as a plain query answers them (after `cursor`, with `where`). */
  async function newestOfAll(where: string, cursor?: { createdAt: Date; id: string }): Promise<string[]> {
    const after = cursor ? `AND (created_at, id) < ($1, $2)` : '';
    const { rows } = await db.sql(
      `SELECT id FROM executions WHERE ${where} ${after} ORDER BY created_at DESC, id DESC LIMIT 50`,
      cursor ? [cursor.createdAt, cursor.id] : [],
    );
    return rows.map((row: { id: string }) => row.id);
  }
  /** Two pages of the list with `filter`, each against the plain query, and the most buffers a statement touched. */
  async function twoPages(filter: ExecutionFilter, where: string): Promise<number> {
    const reads = new SqlExecutionReadModel(explaining);
    const ids = (items: string[]) => items.map((json) => (JSON.parse(json) as { id: string }).id);
    const first = await measured(() => reads.listJson(filter, { limit: 50 }));
    expect(ids(first.answer.items)).toEqual(await newestOfAll(where));
    const cursor = decodeCursor(first.answer.nextCursor!);
    const second = await measured(() => reads.listJson(filter, { limit: 50, cursor }));
    expect(ids(second.answer.items)).toEqual(await newestOfAll(where, cursor));
    expect(second.answer.items).toHaveLength(50);
    return Math.max(first.buffers, second.buffers);
  }

  it("the newest runs of all, and the queued ones: a job's backlog read by index", async () => {
    const { rows } = await db.sql(`SELECT relpages FROM pg_class WHERE relname = 'executions_active'`);
    // the running runs have no index by creation either, but they are as many as the workers run;
    // the queued ones, however many, are read job by job. Each running run, and each queued one of
    // the page, may lie on a page of its own
    const bound = few + OTHERS_RUNNING + MINE.running + 50;
    expect(bound).toBeLessThan(rows[0].relpages); // what reading the partition whole takes
    expect(await twoPages({}, 'true')).toBeLessThan(bound);
    // the backlog's runs of a page, queued at one instant, lie in the order of their ids: a page each
    expect(await twoPages({ status: ExecutionStatus.QUEUED }, `status = 'QUEUED'`)).toBeLessThan(few + 50);
  });

  it('its scheduled run that a run replaces', async () => {
    const replacing = new SqlReplacingRuns(explaining);
    await db.sql(`UPDATE executions SET trigger = 'SCHEDULE', scheduled_for = created_at WHERE id = $1`, [
      newestFirst[1],
    ]);
    const end = new Date(T0.getTime() + 60 * 60_000);
    const { answer, buffers } = await measured(() => replacing.scheduledBetween(jobId, newestFirst[0]!, T0, end));
    expect(answer).toBe(newestFirst[1]);
    expect(buffers).toBeLessThan(few);
  });

  it('the newest queued runs of more jobs than are read job by job: the same pages', async () => {
    const jobs: string[] = [];
    for (let i = 0; i <= QUEUED_JOB_BY_JOB; i++)
      jobs.push(await insertJob(db, { id: randomUUID(), name: `many-${i}` }));
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), job, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $2::timestamptz, $2::timestamptz - n * interval '1 second'
         FROM unnest($1::uuid[]) WITH ORDINALITY AS j (job, n)`,
      [jobs, new Date(T0.getTime() + 30 * 60_000)],
    );
    await twoPages({}, 'true');
    await twoPages({ status: ExecutionStatus.QUEUED }, `status = 'QUEUED'`);
  });
});
