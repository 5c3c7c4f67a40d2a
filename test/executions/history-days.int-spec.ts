import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { HistoryDay } from '../../src/executions/domain/history-day.js';
import { SqlHistoryDays } from '../../src/executions/infrastructure/sql-history-days.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { insertRuns } from '../support/finished-runs.js';
import { closeMigratable, migratableDatabase, migrateThrough, undoFrom } from '../support/migrations.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'HistoryByDay1766476800000';
const HOUR = 60 * 60 * 1000;
/** Days far enough ahead that no test run's day exists until a test makes it. */
const day = (iso: string): HistoryDay => ({
  start: new Date(`${iso}T00:00:00.000Z`),
  end: new Date(new Date(`${iso}T00:00:00.000Z`).getTime() + 24 * HOUR),
});
const D = day('2031-03-10');
const NEXT = day('2031-03-11');

/**
 * The history of finished runs is partitioned by UTC day of their creation: days are made ahead,
 * a run whose day is missing is stored apart (never refused) and moved into its day once made, and
 * retention drops a day whole, keeping the runs its rule keeps.
 */
describe("the history's days", () => {
  let db: TestDatabase;
  let source: DataSource;
  let days: SqlHistoryDays;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    days = new SqlHistoryDays(new Database(source));
  });
  afterAll(() => closeMigratable(db, source));

  const leafOf = async (ids: readonly (string | undefined)[]) => {
    const { rows } = await db.sql(
      `SELECT id, tableoid::regclass::text AS leaf FROM executions WHERE id = ANY ($1::uuid[])`,
      [ids],
    );
    const byId = new Map((rows as { id: string; leaf: string }[]).map((row) => [row.id, row.leaf]));
    return ids.map((id) => (id === undefined ? undefined : byId.get(id)) ?? 'gone');
  };
  /** Drops the days before `day` (runs of the other tests, kept or not), then `day`: as retention does, oldest first. */
  const dropThrough = async (day: HistoryDay, finishedBefore: Date, keepPerJob: number) => {
    for (const older of (await days.list()).filter((stored) => stored.start < day.start)) {
      await days.drop(older, finishedBefore, keepPerJob);
    }
    return days.drop(day, finishedBefore, keepPerJob);
  };
  const at = (d: HistoryDay, hours: number) => new Date(d.start.getTime() + hours * HOUR);
  const newJob = () => insertJob(db, { id: randomUUID(), name: `days-${randomUUID()}` });

  it('a run whose day is missing is stored apart, never refused, and moved into its day once made', async () => {
    const job = await newJob();
    const [run] = await insertRuns(db, job, [at(D, 12)]);
    expect(await leafOf([run])).toEqual(['executions_h_default']);

    expect(await days.make([D, NEXT])).toEqual([D, NEXT]);
    expect(await leafOf([run])).toEqual(['executions_h_20310310']);
    expect(await days.make([D, NEXT])).toEqual([]);
    expect((await days.list()).slice(-2)).toEqual([D, NEXT]);
    const { rows } = await db.sql(
      `SELECT status, orbit_execution_json(e)::jsonb->>'status' AS shown FROM executions e WHERE id = $1`,
      [run],
    );
    expect(rows).toEqual([{ status: 'SUCCEEDED', shown: 'SUCCEEDED' }]);
  });

  it('a run created late in one day that ends in the next stays in the day it was created', async () => {
    const job = await newJob();
    const [run] = await insertRuns(db, job, [new Date(D.end.getTime() - 1000)], 'QUEUED');
    const started = new Date(D.end.getTime() - 500);
    await db.sql(`UPDATE executions SET status = 'RUNNING', started_at = $2, worker_id = 'w1' WHERE id = $1`, [
      run,
      started,
    ]);
    expect(await leafOf([run])).toEqual(['executions_active']);
    await db.sql(`UPDATE executions SET status = 'SUCCEEDED', finished_at = $2, exit_code = 0 WHERE id = $1`, [
      run,
      at(NEXT, 1),
    ]);
    expect(await leafOf([run])).toEqual(['executions_h_20310310']);
  });

  it('when a day cannot be made, runs of that day are still stored, and the day is made once it can be', async () => {
    const blocked = day('2031-03-12');
    await db.sql(`CREATE TABLE executions_h_20310312 (blocking integer)`);
    await expect(days.make([blocked])).rejects.toThrow(/already exists/);
    const [run] = await insertRuns(db, await newJob(), [at(blocked, 3)]);
    expect(await leafOf([run])).toEqual(['executions_h_default']);

    await db.sql(`DROP TABLE executions_h_20310312`);
    expect(await days.make([blocked])).toEqual([blocked]);
    expect(await leafOf([run])).toEqual(['executions_h_20310312']);
  });

  it('retention drops a day whole, keeping the newest runs of each job and those that ended late, with their events and output', async () => {
    const [first, second] = [day('2031-04-01'), day('2031-04-02')];
    await days.make([first, second]);
    const busy = await newJob();
    const sparse = await newJob();
    const busyDay = await insertRuns(
      db,
      busy,
      Array.from({ length: 5 }, (_, i) => at(first, i + 1)),
    );
    const [failed] = await insertRuns(db, busy, [at(first, 7)], 'FAILED');
    const busyLater = await insertRuns(db, busy, [at(second, 1), at(second, 2), at(second, 3)]);
    const { rows: retried } = await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, retry_of,
         due_at, created_at, started_at, finished_at, exit_code)
       VALUES (gen_random_uuid(), $1, 'true', 1, 60, 'SUCCEEDED', 2, 'RETRY', $2, $3, $3, $3, $3, 0) RETURNING id`,
      [busy, failed, at(second, 4)],
    );
    const retry = (retried[0] as { id: string }).id;
    // the busy job's last run of the day ended after retention's line: kept whatever its rank
    const late = busyDay[0];
    await db.sql(`UPDATE executions SET finished_at = $2 WHERE id = $1`, [late, at(second, 20)]);
    const sparseDay = await insertRuns(
      db,
      sparse,
      Array.from({ length: 6 }, (_, i) => at(first, i + 1)),
    );
    for (const id of [...busyDay, ...sparseDay]) {
      await db.sql(
        `INSERT INTO execution_outputs (execution_id, created_at, stdout, updated_at)
         SELECT id, created_at, 'out', now() FROM executions WHERE id = $1`,
        [id],
      );
    }
    // notices in the day: of a run of the day before (stays with its run), and of a run of the day (goes)
    const [before] = await insertRuns(db, busy, [new Date(first.start.getTime() - HOUR)]);
    const notice = (id: string | undefined) =>
      db.sql(
        `INSERT INTO event_log (type, at, job_id, execution_id) VALUES ('execution.long_running', $2, $3, $1) RETURNING seq`,
        [id, at(first, 9), busy],
      );
    const kept = ((await notice(before)).rows[0] as { seq: string }).seq;
    await notice(busyDay[1]);
    const outcomes = (await db.sql(`SELECT * FROM job_outcomes ORDER BY job_id`)).rows;

    // keep 4 per job: the busy job has 4 newer runs (3 and the retry), the sparse one none
    const result = await dropThrough(first, at(second, 12), 4);
    const keptSparse = sparseDay.slice(2);
    expect(result).toEqual({ dropped: 2 + 4 + 1, kept: 1 + keptSparse.length });
    expect(await leafOf([...busyDay, failed, ...sparseDay])).toEqual([
      'executions_h_kept',
      'gone',
      'gone',
      'gone',
      'gone',
      'gone',
      'gone',
      'gone',
      ...keptSparse.map(() => 'executions_h_kept'),
    ]);
    expect(await leafOf([...busyLater, retry])).toEqual(Array(4).fill('executions_h_20310402'));
    const { rows: retryRow } = await db.sql(
      `SELECT retry_of, orbit_execution_json(e)::jsonb->>'retryOf' AS shown FROM executions e WHERE id = $1`,
      [retry],
    );
    expect(retryRow).toEqual([{ retry_of: null, shown: null }]);
    const { rows: left } = await db.sql(
      `SELECT (SELECT count(*)::int FROM event_log WHERE execution_id = ANY ($1::uuid[])) AS events,
              (SELECT count(*)::int FROM execution_outputs WHERE execution_id = ANY ($1::uuid[])) AS outputs,
              (SELECT count(*)::int FROM pg_class
                WHERE relname IN ('executions_h_20310401', 'event_log_20310401', 'execution_outputs_20310401')) AS tables`,
      [[...busyDay, failed, ...sparseDay]],
    );
    expect(left).toEqual([{ events: 1 + keptSparse.length, outputs: 1 + keptSparse.length, tables: 0 }]);
    const { rows: notices } = await db.sql(
      `SELECT seq, execution_id FROM event_log WHERE type = 'execution.long_running'`,
    );
    expect(notices).toEqual([{ seq: kept, execution_id: before }]);
    // a kept run is copied back, not ended again: no job's outcome changed
    expect((await db.sql(`SELECT * FROM job_outcomes ORDER BY job_id`)).rows).toEqual(outcomes);
  });

  it('a reader paging through a day being dropped gets no error: the drop waits for its transaction', async () => {
    const doomed = day('2031-05-01');
    await days.make([doomed, day('2031-05-02')]);
    // days go oldest first: a later day is refused while an older one is stored
    await expect(days.drop(day('2031-05-02'), doomed.end, 0)).rejects.toThrow(/oldest first/);
    for (const older of (await days.list()).filter((stored) => stored.start < doomed.start)) {
      await days.drop(older, doomed.end, 0);
    }
    const job = await newJob();
    await insertRuns(
      db,
      job,
      Array.from({ length: 6 }, (_, i) => at(doomed, i + 1)),
    );
    const page = `SELECT id, created_at FROM executions WHERE job_id = $1 AND created_at < $2 ORDER BY created_at DESC, id DESC LIMIT 2`;
    const reader = new pg.Client({ connectionString: db.url });
    await reader.connect();
    try {
      await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const first = await reader.query(page, [job, doomed.end]);
      let dropped = false;
      const drop = days.drop(doomed, doomed.end, 0).then((result) => {
        dropped = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(dropped).toBe(false);
      const second = await reader.query(page, [job, (first.rows[1] as { created_at: Date }).created_at]);
      expect(second.rows).toHaveLength(2);
      await reader.query('COMMIT');
      expect(await drop).toEqual({ dropped: 6, kept: 0 });
      const after = await reader.query(page, [job, doomed.end]);
      expect(after.rows).toEqual([]);
    } finally {
      await reader.end();
    }
  });

  it('an installation moves onto the days with its history, events and output, and can go back', async () => {
    await undoFrom(source, MIGRATION);
    const job = await newJob();
    const finished = await insertRuns(db, job, [new Date(Date.now() - 40 * 24 * HOUR), new Date(Date.now() - HOUR)]);
    const [queued] = await insertRuns(db, job, [new Date(Date.now() - 2 * HOUR)], 'QUEUED');
    const ids = [...finished, queued];
    for (const id of [finished[1], queued]) {
      await db.sql(`INSERT INTO execution_outputs (execution_id, stdout, updated_at) VALUES ($1, 'out', now())`, [id]);
    }
    const rows = async () =>
      (await db.sql(`SELECT * FROM executions WHERE id = ANY ($1::uuid[]) ORDER BY id`, [ids])).rows.map(
        ({ tableoid: _, ...row }: Record<string, unknown>) => row,
      );
    const events = async () => (await db.sql(`SELECT * FROM event_log ORDER BY seq`)).rows;
    const outputs = async () =>
      (await db.sql(`SELECT execution_id, stdout FROM execution_outputs ORDER BY execution_id`)).rows;
    const before = { runs: await rows(), events: await events(), outputs: await outputs() };

    await migrateThrough(db, 'EventsAndOutputByDay1766480400000');
    expect(await leafOf(ids)).toEqual(['executions_h_legacy', 'executions_h_legacy', 'executions_active']);
    expect({ runs: await rows(), events: await events(), outputs: await outputs() }).toEqual(before);
    const { rows: made } = await db.sql(
      `SELECT i.inhparent::regclass::text AS parent, count(*)::int AS days FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE c.relname ~ '_[0-9]{8}$' GROUP BY 1 ORDER BY 1`,
    );
    expect(made).toEqual([
      { parent: 'event_log', days: 7 },
      { parent: 'execution_outputs', days: 7 },
      { parent: 'executions_history', days: 7 },
    ]);
    // the output of a run that waits is written on in its day; the one of a finished run stays before the days
    const { rows: outputDays } = await db.sql(
      `SELECT execution_id, created_at FROM execution_outputs WHERE execution_id = ANY ($1::uuid[]) ORDER BY created_at`,
      [ids],
    );
    const created = (id: string | undefined) =>
      (before.runs.find((run) => run.id === id) as { created_at: Date }).created_at;
    expect(outputDays).toEqual([
      { execution_id: finished[1], created_at: -Infinity },
      { execution_id: queued, created_at: created(queued) },
    ]);
    // the events' sequence goes on where it was
    const last = Math.max(...before.events.map((event) => Number((event as { seq: string }).seq)));
    await newJob();
    const { rows: next } = await db.sql(`SELECT max(seq)::int AS seq FROM event_log`);
    expect(next).toEqual([{ seq: last + 1 }]);

    await undoFrom(source, MIGRATION);
    expect(await leafOf(ids)).toEqual(['executions_history', 'executions_history', 'executions_active']);
    expect(await rows()).toEqual(before.runs);
    expect((await outputs()).length).toBe(before.outputs.length);
    const { rows: identity } = await db.sql(
      `SELECT attidentity FROM pg_attribute WHERE attrelid = 'event_log'::regclass AND attname = 'seq'`,
    );
    expect(identity).toEqual([{ attidentity: 'a' }]);
    await source.runMigrations({ transaction: 'all' });
    expect(await leafOf(ids)).toEqual(['executions_h_legacy', 'executions_h_legacy', 'executions_active']);
    await newJob();
    const { rows: after } = await db.sql(`SELECT max(seq)::int AS seq FROM event_log`);
    expect(after).toEqual([{ seq: last + 2 }]);
  });
});
