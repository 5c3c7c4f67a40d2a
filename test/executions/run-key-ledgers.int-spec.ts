import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
import { undoFrom } from '../support/migrations.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'RunKeyLedgers1766404800000';
const SLOT = new Date('2026-12-01T03:00:00.000Z');

/**
 * A slot's run and a chained run are unique by their key: in the ledgers `execution_slots` and
 * `execution_chains`, which an installation's existing runs fill when it moves onto them.
 */
describe('the ledgers of run keys (slots and chains)', () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    source = new DataSource(dataSourceOptions(db.url, 1));
    await source.initialize();
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    jobId = randomUUID();
    await insertJob(db, { id: jobId, name: `keys-${jobId}` });
  });

  /** Inserts a run of `trigger` and answers the ids the database stored (none when its key is taken). */
  const insert = async (
    trigger: 'SCHEDULE' | 'BACKFILL' | 'CHAIN' | 'MANUAL',
    { pinned = null, upstream = null }: { pinned?: string | null; upstream?: string | null } = {},
  ): Promise<string[]> => {
    const { rows } = await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
         scheduled_for, pinned_worker, triggered_by, upstream_status, due_at, created_at)
       VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, $3, CASE WHEN $3 IN ('SCHEDULE', 'BACKFILL') THEN $4::timestamptz END,
               $5, $6, CASE WHEN $3 = 'CHAIN' THEN 'SUCCEEDED' END, now(), now())
       RETURNING id`,
      [randomUUID(), jobId, trigger, SLOT, pinned, upstream],
    );
    return rows.map((row: { id: string }) => row.id);
  };

  it('one run per slot and pinned worker, shared by SCHEDULE and BACKFILL; one per upstream run; manual runs are free', async () => {
    const [scheduled] = await insert('SCHEDULE');
    expect(scheduled).toBeDefined();
    expect(await insert('SCHEDULE')).toEqual([]);
    expect(await insert('BACKFILL')).toEqual([]);
    expect(await insert('SCHEDULE', { pinned: 'host-a:1:aa' })).toHaveLength(1);
    expect(await insert('SCHEDULE', { pinned: 'host-a:1:aa' })).toEqual([]);

    const upstream = randomUUID();
    expect(await insert('CHAIN', { upstream })).toHaveLength(1);
    expect(await insert('CHAIN', { upstream })).toEqual([]);
    expect(await insert('CHAIN', { upstream: randomUUID() })).toHaveLength(1);

    expect(await insert('MANUAL')).toHaveLength(1);
    expect(await insert('MANUAL')).toHaveLength(1);
    const { rows } = await db.sql(`SELECT trigger, count(*)::int AS n FROM executions WHERE job_id = $1 GROUP BY 1`, [
      jobId,
    ]);
    expect(Object.fromEntries(rows.map((r: { trigger: string; n: number }) => [r.trigger, r.n]))).toEqual({
      SCHEDULE: 2,
      CHAIN: 2,
      MANUAL: 2,
    });
  });

  it('a concurrent insert of a taken key waits for the first, then stores nothing; a rolled-back first frees it', async () => {
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
           scheduled_for, due_at, created_at)
         VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'SCHEDULE', $3, now(), now())`,
        [randomUUID(), jobId, SLOT],
      );
      let settled = false;
      const second = insert('SCHEDULE').finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false); // it waits on the first's key
      await other.query('ROLLBACK');
      expect(await second).toHaveLength(1);

      await other.query('BEGIN');
      await other.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
           scheduled_for, pinned_worker, due_at, created_at)
         VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'SCHEDULE', $3, 'w', now(), now())`,
        [randomUUID(), jobId, SLOT],
      );
      const third = insert('SCHEDULE', { pinned: 'w' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await other.query('COMMIT');
      expect(await third).toEqual([]);
    } finally {
      await other.end();
    }
  });

  it('deleting runs releases their keys, and emptying executions empties the ledgers', async () => {
    const [slotRun] = await insert('SCHEDULE');
    const upstream = randomUUID();
    const [chainRun] = await insert('CHAIN', { upstream });
    await db.sql('DELETE FROM executions WHERE id = ANY ($1::uuid[])', [[slotRun, chainRun]]);
    expect(await insert('SCHEDULE')).toHaveLength(1);
    expect(await insert('CHAIN', { upstream })).toHaveLength(1);

    await db.sql('TRUNCATE executions, execution_outputs');
    const { rows } = await db.sql(
      `SELECT (SELECT count(*) FROM execution_slots)::int AS slots, (SELECT count(*) FROM execution_chains)::int AS chains`,
    );
    expect(rows[0]).toEqual({ slots: 0, chains: 0 });
    expect(await insert('SCHEDULE')).toHaveLength(1);
  });

  it('an installation moving onto the ledgers keeps its runs unique, and can go back', async () => {
    await undoFrom(source, MIGRATION);
    const upstream = randomUUID();
    // through the old schema, whose unique indexes skip nothing: a run of the slot and a chained run
    const [slotRun] = await insert('SCHEDULE');
    const [chainRun] = await insert('CHAIN', { upstream });
    await expect(insert('SCHEDULE')).rejects.toMatchObject({ code: '23505', constraint: 'executions_job_slot_key' });

    await source.runMigrations({ transaction: 'all' });
    const ledgers = await db.sql(
      `SELECT (SELECT execution_id FROM execution_slots WHERE job_id = $1) AS slot,
              (SELECT execution_id FROM execution_chains WHERE job_id = $1) AS chain`,
      [jobId],
    );
    expect(ledgers.rows[0]).toEqual({ slot: slotRun, chain: chainRun });
    expect(await insert('SCHEDULE')).toEqual([]);
    expect(await insert('CHAIN', { upstream })).toEqual([]);

    await undoFrom(source, MIGRATION);
    await expect(insert('CHAIN', { upstream })).rejects.toMatchObject({
      code: '23505',
      constraint: 'executions_chain_key',
    });
    await source.runMigrations({ transaction: 'all' });
  });
});
