import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { runBySql, walSpanOf } from '../support/runs-by-sql.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'JobCheckedAtEnqueue1766509200000';
const T0 = new Date('2026-12-01T03:00:05.000Z');

/**
 * A run's job is checked as the run is queued, not again as it moves into the history: the move
 * neither queries nor locks the job's row. A job that has runs, queued or finished, still cannot
 * be deleted.
 */
describe("a run's job, checked once", () => {
  let db: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    await db.sql('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  });
  afterAll(() => closeMigratable(db, source));

  const newJob = () => insertJob(db, { id: randomUUID(), name: `checked-${randomUUID()}` });

  const { queue, start, finish } = runBySql(() => db, T0);

  /**
   * The WAL records `write` made on this database's `jobs` pages (other tests' databases, copies
   * of one template, hold a `jobs` of the same file number).
   */
  const jobsRecords = async (write: () => Promise<unknown>): Promise<string[]> => {
    const { from, to } = await walSpanOf(db, write);
    const { rows } = await db.sql(
      `SELECT r.resource_manager || '/' || r.record_type AS record
         FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r
        WHERE r.block_ref LIKE '%/' || (SELECT oid FROM pg_database WHERE datname = current_database())
                                || '/' || pg_relation_filenode('jobs') || ' %'`,
      [from, to],
    );
    return rows.map((row: { record: string }) => row.record);
  };

  it('queuing a run locks its job (the key is checked); its start and its move into the history do not', async () => {
    const jobId = await newJob();
    let run = '';
    expect(await jobsRecords(async () => (run = await queue(jobId)))).toEqual(['Heap/LOCK']);
    expect(await jobsRecords(() => start(run))).toEqual([]);
    expect(await jobsRecords(() => finish(run))).toEqual([]);
    const { rows } = await db.sql(`SELECT tableoid::regclass::text AS part FROM executions WHERE id = $1`, [run]);
    expect(rows[0].part).toMatch(/^executions_h_/);
  });

  it('a run of an unknown job is refused as it is queued', async () => {
    await expect(queue(randomUUID())).rejects.toMatchObject({ code: '23503', constraint: 'executions_job_id_fkey' });
  });

  it('a job with a queued run, or with runs in the history, cannot be deleted; one without runs can', async () => {
    const queued = await newJob();
    await queue(queued);
    await expect(db.sql(`DELETE FROM jobs WHERE id = $1`, [queued])).rejects.toMatchObject({ code: '23503' });

    const finished = await newJob();
    const run = await queue(finished);
    await start(run);
    await finish(run);
    await expect(db.sql(`DELETE FROM jobs WHERE id = $1`, [finished])).rejects.toMatchObject({
      code: '23503',
      constraint: 'executions_history_job_id_check',
    });

    const idle = await newJob();
    await db.sql(`DELETE FROM jobs WHERE id = $1`, [idle]);
    expect((await db.sql(`SELECT 1 FROM jobs WHERE id = $1`, [idle])).rowCount).toBe(0);
  });

  it('goes back to the key on every partition, and forward again', async () => {
    await undoFrom(source, MIGRATION);
    const jobId = await newJob();
    const run = await queue(jobId);
    await start(run);
    expect(await jobsRecords(() => finish(run))).toEqual(['Heap/LOCK']);
    await source.runMigrations({ transaction: 'all' });
    const again = await queue(jobId);
    await start(again);
    expect(await jobsRecords(() => finish(again))).toEqual([]);
  });
});
