import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { closeMigratable, migratableDatabase, migrateThrough, undoFrom } from '../support/migrations.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'QueueAndHistory1766433600000';
const SLOT = new Date('2026-12-01T03:00:00.000Z');
const T0 = new Date('2026-12-01T03:00:05.000Z');

/** What each status leaves set, as the shape check of `executions` asks. */
const SHAPES = {
  QUEUED: { started: false, finished: false, exit: null, error: null },
  RUNNING: { started: true, finished: false, exit: null, error: null },
  SUCCEEDED: { started: true, finished: true, exit: 0, error: null },
  FAILED: { started: true, finished: true, exit: 1, error: 'exit code 1' },
  CANCELLED: { started: false, finished: true, exit: null, error: null },
} as const;
type Status = keyof typeof SHAPES;

/**
 * `executions` is partitioned by status: the runs that wait or run in `executions_active`, the
 * finished ones in `executions_history`. A run moves once, as it ends; what followed its end on
 * one table (its job's outcome, its events) still follows it, and an existing
 * installation moves onto the partitions with its history.
 */
describe('the queue and the history of executions', () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
  });
  afterAll(() => closeMigratable(db, source));
  beforeEach(async () => {
    jobId = await insertJob(db, { id: randomUUID(), name: `history-${randomUUID()}` });
  });

  /** A run of the job in `status`, written by SQL as an installation of any version holds it. */
  const insert = async (
    status: Status,
    { trigger = 'MANUAL', retryOf = null }: { trigger?: 'MANUAL' | 'SCHEDULE' | 'RETRY'; retryOf?: string | null } = {},
  ): Promise<string> => {
    const shape = SHAPES[status];
    const id = randomUUID();
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for,
         retry_of, due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id, lease_expires_at)
       VALUES ($1, $2, 'true', 1, 60, $3, CASE WHEN $4 = 'RETRY' THEN 2 ELSE 1 END, $4,
               CASE WHEN $4 = 'SCHEDULE' THEN $5::timestamptz END, $6, $7, $7,
               CASE WHEN $8 THEN $7::timestamptz END, CASE WHEN $9 THEN $7::timestamptz + interval '1 s' END, $10, $11,
               CASE WHEN $8 THEN 'w1' END, CASE WHEN $3 = 'RUNNING' THEN $7::timestamptz + interval '1 min' END)`,
      [id, jobId, status, trigger, SLOT, retryOf, T0, shape.started, shape.finished, shape.exit, shape.error],
    );
    return id;
  };

  /** The partition of `executions` that holds each run (a day of the history counts as the history). */
  const partitionsOf = async (ids: string[]) => {
    const { rows } = await db.sql(
      `SELECT id, regexp_replace(tableoid::regclass::text, '^executions_h_.*', 'executions_history') AS partition
         FROM executions WHERE id = ANY ($1::uuid[])`,
      [ids],
    );
    const byId = new Map((rows as { id: string; partition: string }[]).map((row) => [row.id, row.partition]));
    return ids.map((id) => byId.get(id));
  };
  const eventsOf = async () =>
    (
      await db.sql(
        `SELECT seq::int, type, execution_id FROM events WHERE job_id = $1 OR execution_id IN
           (SELECT id FROM executions WHERE job_id = $1) ORDER BY seq`,
        [jobId],
      )
    ).rows;
  /** Saves one run's move as the workers and the API do (the version it was read at). */
  const save = (client: Pick<TestDatabase, 'sql'>, id: string, version: number, status: Status) => {
    const shape = SHAPES[status];
    return client.sql(
      `SELECT id FROM orbit_save_executions(ARRAY[$1]::uuid[], ARRAY[$2]::int[], ARRAY[$3], ARRAY[$4::timestamptz],
         ARRAY[$5::timestamptz], ARRAY[$6::int], ARRAY[$7::text], ARRAY['w1'], ARRAY[NULL::text], ARRAY[NULL::text],
         $4::timestamptz + interval '1 min') AS id`,
      [id, version, status, shape.started ? T0 : null, shape.finished ? T0 : null, shape.exit, shape.error],
    );
  };

  it('a run waits and runs in the active partition and moves to the history once, as it ends, with all that follows an end', async () => {
    const run = await insert('QUEUED', { trigger: 'SCHEDULE' });
    expect(await partitionsOf([run])).toEqual(['executions_active']);
    expect((await save(db, run, 1, 'RUNNING')).rows).toEqual([{ id: run }]);
    expect(await partitionsOf([run])).toEqual(['executions_active']);
    expect((await save(db, run, 2, 'FAILED')).rows).toEqual([{ id: run }]);
    expect(await partitionsOf([run])).toEqual(['executions_history']);

    const { rows } = await db.sql(
      `SELECT e.version, orbit_execution_json(e)::jsonb->>'status' AS shown, o.failures_in_row,
              (SELECT count(*)::int FROM execution_slots s WHERE s.execution_id = e.id) AS slots
         FROM executions e LEFT JOIN job_outcomes o ON o.job_id = e.job_id WHERE e.id = $1`,
      [run],
    );
    expect(rows[0]).toEqual({ version: 3, shown: 'FAILED', failures_in_row: 1, slots: 1 });
    expect((await eventsOf()).map((event: { type: string }) => event.type)).toEqual([
      'job.created',
      'execution.queued',
      'execution.running',
      'execution.failed',
    ]);
    // a finished run takes no further move, and its slot stays taken
    expect((await save(db, run, 3, 'SUCCEEDED')).rows).toEqual([]);
    const again = await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for,
         due_at, created_at) VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'SCHEDULE', $3, now(), now()) RETURNING id`,
      [randomUUID(), jobId, SLOT],
    );
    expect(again.rows).toEqual([]);
  });

  it('a move written by hand keeps the run and its key; the database still refuses an illegal move', async () => {
    const run = await insert('QUEUED', { trigger: 'SCHEDULE' });
    // the version unchanged, as no Orbit write leaves it: the run still holds its own slot
    await db.sql(`UPDATE executions SET status = 'CANCELLED', finished_at = now() WHERE id = $1`, [run]);
    expect(await partitionsOf([run])).toEqual(['executions_history']);
    await expect(
      db.sql(`UPDATE executions SET status = 'RUNNING', started_at = now(), finished_at = NULL WHERE id = $1`, [run]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'executions_transition_check' });
  });

  it('a write that waited on a run which moved meanwhile is tried again, and finds the run ended', async () => {
    const run = await insert('RUNNING');
    const finisher = new pg.Client({ connectionString: db.url });
    const dataSource = new DataSource(dataSourceOptions(db.url, 1));
    await finisher.connect();
    await dataSource.initialize();
    try {
      await finisher.query('BEGIN');
      await save({ sql: (text, params) => finisher.query(text, params) }, run, 1, 'SUCCEEDED');
      const database = new Database(dataSource);
      // a cancel of the run, as the API saves it, waits for the finish's lock
      const cancel = database.run(() =>
        database.rows<{ id: string }>(
          `SELECT id FROM orbit_save_executions(ARRAY[$1]::uuid[], ARRAY[1], ARRAY['CANCELLED'], ARRAY[now()],
             ARRAY[now()], ARRAY[NULL::int], ARRAY[NULL::text], ARRAY['w1'], ARRAY[NULL::text], ARRAY[NULL::text], NULL) AS id`,
          [run],
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      await finisher.query('COMMIT');
      // PostgreSQL refuses the waiting write (40001: the row moved to another partition); tried
      // again, it finds the run at its new version and saves nothing, as a stale write
      expect(await cancel).toEqual([]);
      const { rows } = await db.sql(`SELECT status FROM executions WHERE id = $1`, [run]);
      expect(rows).toEqual([{ status: 'SUCCEEDED' }]);
    } finally {
      await finisher.end();
      await dataSource.destroy();
    }
  });

  it('an installation moves onto the partitions with its history, its keys and its events, and can go back', async () => {
    await undoFrom(source, MIGRATION);
    const runs = {
      queued: await insert('QUEUED', { trigger: 'SCHEDULE' }),
      running: await insert('RUNNING'),
      succeeded: await insert('SUCCEEDED'),
      failed: await insert('FAILED'),
      cancelled: await insert('CANCELLED'),
    };
    const retry = await insert('QUEUED', { trigger: 'RETRY', retryOf: runs.failed });
    const ids = [...Object.values(runs), retry];
    const before = await eventsOf();
    const rows = async () =>
      (await db.sql(`SELECT * FROM executions WHERE id = ANY ($1::uuid[]) ORDER BY id`, [ids])).rows.map(
        ({ tableoid: _, ...row }: Record<string, unknown>) => row,
      );
    const stored = await rows();

    await migrateThrough(db, MIGRATION);
    expect(await partitionsOf(ids)).toEqual([
      'executions_active',
      'executions_active',
      'executions_history',
      'executions_history',
      'executions_history',
      'executions_active',
    ]);
    expect(await rows()).toEqual(stored);
    expect(await eventsOf()).toEqual(before);
    // what is moved on keeps working: the running run ends, the queued one keeps its slot
    expect((await save(db, runs.running, 1, 'SUCCEEDED')).rows).toEqual([{ id: runs.running }]);
    expect(await partitionsOf([runs.running])).toEqual(['executions_history']);
    const taken = await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for,
         due_at, created_at) VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'SCHEDULE', $3, now(), now()) RETURNING id`,
      [randomUUID(), jobId, SLOT],
    );
    expect(taken.rows).toEqual([]);

    await undoFrom(source, MIGRATION);
    const { rows: back } = await db.sql(
      `SELECT c.relkind::text AS kind, (SELECT count(*)::int FROM executions WHERE id = ANY ($1::uuid[])) AS runs
         FROM pg_class c WHERE c.oid = 'executions'::regclass`,
      [ids],
    );
    expect(back).toEqual([{ kind: 'r', runs: ids.length }]);
    await source.runMigrations({ transaction: 'all' });
    expect(await partitionsOf([runs.running])).toEqual(['executions_history']);
  });
});
