import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'ExecutionKeysByTriggers1766404800000';
const SLOT = new Date('2026-12-01T03:00:00.000Z');

/**
 * A slot's run and a chained run are unique by their key, in the ledgers `execution_slots` and
 * `execution_chains`; a retry and an output name an existing run, and go with it as foreign keys
 * made them. An installation's existing runs move onto these triggers with their keys.
 */
describe("the executions' keys and references, kept by triggers", () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
  });
  afterAll(() => closeMigratable(db, source));
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

  const insertRetry = async (retryOf: string): Promise<string> => {
    const id = randomUUID();
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, retry_of,
         due_at, created_at)
       VALUES ($1, $2, 'true', 1, 60, 'QUEUED', 2, 'RETRY', $3, now(), now())`,
      [id, jobId, retryOf],
    );
    return id;
  };
  const writeOutput = (executionId: string) =>
    db.sql(
      `INSERT INTO execution_outputs (execution_id, created_at, stdout, updated_at)
       VALUES ($1, coalesce((SELECT created_at FROM executions WHERE id = $1), now()), 'out', now())
       ON CONFLICT (execution_id, created_at) DO UPDATE SET stdout = execution_outputs.stdout || 'more'`,
      [executionId],
    );
  /** As the schema before the output's days held it. */
  const writeOldOutput = (executionId: string) =>
    db.sql(`INSERT INTO execution_outputs (execution_id, stdout, updated_at) VALUES ($1, 'out', now())`, [executionId]);
  const outputs = async (ids: string[]) =>
    (await db.sql('SELECT execution_id FROM execution_outputs WHERE execution_id = ANY ($1::uuid[])', [ids])).rows
      .length;
  const retryOf = async (id: string) =>
    (await db.sql('SELECT retry_of FROM executions WHERE id = $1', [id])).rows[0].retry_of as string | null;

  it('a retry or an output naming a run that does not exist is refused, as by a foreign key', async () => {
    await expect(insertRetry(randomUUID())).rejects.toMatchObject({
      code: '23503',
      constraint: 'executions_retry_of_fkey',
      table: 'executions',
    });
    await expect(writeOutput(randomUUID())).rejects.toMatchObject({
      code: '23503',
      constraint: 'execution_outputs_execution_id_fkey',
      table: 'execution_outputs',
    });
    const [run] = await insert('MANUAL');
    await writeOutput(run!);
    await writeOutput(run!); // the second write updates: no check again, no error
    expect(await retryOf(await insertRetry(run!))).toBe(run);
  });

  it('a run being deleted holds a retry of it back until the deletion commits, then refuses it', async () => {
    const [run] = await insert('MANUAL');
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('DELETE FROM executions WHERE id = $1', [run]);
      let settled = false;
      const retry = insertRetry(run!).finally(() => (settled = true));
      retry.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await other.query('COMMIT');
      await expect(retry).rejects.toMatchObject({ code: '23503', constraint: 'executions_retry_of_fkey' });
    } finally {
      await other.end();
    }
  });

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

  it("deleting runs releases their keys, deletes their output and clears their retries' retry_of; emptying executions empties the rest", async () => {
    const [slotRun] = await insert('SCHEDULE');
    const upstream = randomUUID();
    const [chainRun] = await insert('CHAIN', { upstream });
    await writeOutput(slotRun!);
    const retry = await insertRetry(slotRun!);
    await db.sql('DELETE FROM executions WHERE id = ANY ($1::uuid[])', [[slotRun, chainRun]]);
    expect(await outputs([slotRun!])).toBe(0);
    expect(await retryOf(retry)).toBeNull();
    expect(await insert('SCHEDULE')).toHaveLength(1);
    expect(await insert('CHAIN', { upstream })).toHaveLength(1);

    await writeOutput(retry);
    await db.sql('TRUNCATE executions');
    const { rows } = await db.sql(
      `SELECT (SELECT count(*) FROM execution_slots)::int AS slots, (SELECT count(*) FROM execution_chains)::int AS chains,
              (SELECT count(*) FROM execution_outputs)::int AS outputs`,
    );
    expect(rows[0]).toEqual({ slots: 0, chains: 0, outputs: 0 });
    expect(await insert('SCHEDULE')).toHaveLength(1);
  });

  it('an installation moving onto the ledgers keeps its runs unique, and can go back', async () => {
    await undoFrom(source, MIGRATION);
    const upstream = randomUUID();
    // through the old schema, whose unique indexes skip nothing: a run of the slot with its output and its
    // retry, and a chained run
    const [slotRun] = await insert('SCHEDULE');
    const [chainRun] = await insert('CHAIN', { upstream });
    await expect(insert('SCHEDULE')).rejects.toMatchObject({ code: '23505', constraint: 'executions_job_slot_key' });
    await writeOldOutput(slotRun!);
    const retry = await insertRetry(slotRun!);

    await source.runMigrations({ transaction: 'all' });
    const ledgers = await db.sql(
      `SELECT (SELECT execution_id FROM execution_slots WHERE job_id = $1) AS slot,
              (SELECT execution_id FROM execution_chains WHERE job_id = $1) AS chain`,
      [jobId],
    );
    expect(ledgers.rows[0]).toEqual({ slot: slotRun, chain: chainRun });
    expect(await insert('SCHEDULE')).toEqual([]);
    expect(await insert('CHAIN', { upstream })).toEqual([]);
    await db.sql('DELETE FROM executions WHERE id = $1', [slotRun]);
    expect({ outputs: await outputs([slotRun!]), retryOf: await retryOf(retry) }).toEqual({
      outputs: 0,
      retryOf: null,
    });

    await undoFrom(source, MIGRATION);
    await expect(insertRetry(randomUUID())).rejects.toMatchObject({ constraint: 'executions_retry_of_fkey' });
    await expect(insert('CHAIN', { upstream })).rejects.toMatchObject({
      code: '23505',
      constraint: 'executions_chain_key',
    });
    await source.runMigrations({ transaction: 'all' });
  });
});
