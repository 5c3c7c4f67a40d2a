import { randomUUID } from 'node:crypto';
import { AFTER, LATEST, NO_BOUND, START_TO_END_SEQS } from '../../src/events/infrastructure/sql-event-log.js';
import { planCost } from '../support/plan-cost.js';
import { createTestDatabase, insertJob, TestDatabase } from '../support/test-database.js';

const RUNS = 20_000;
/** Runs that start and end one after the other, after the others: each start a few seqs before its end. */
const SHORT_RUNS = 1_000;

/**
 * A run's start and end are read from its row: the stream's reads walk each part's index from the
 * cursor on (the log's, the ends', the running runs', and the starts long before their end), and
 * the ends' index START_TO_END_SEQS further for the other starts; so a read costs the same few
 * pages behind 20,000 finished runs as behind none, and a page more per day the log and the
 * history keep (each day has its own index). Counted in buffers, which no machine's speed changes.
 * The 20,000 runs all start before any ends, so their starts are far from their ends; the last
 * 1,000 start and end one by one, and one still runs.
 */
describe("the stream's reads behind a long history", () => {
  let db: TestDatabase;
  let newest: number;
  /** The days (partitions) of the log and of the history: each has its seq indexes. */
  let days: number;

  beforeAll(async () => {
    db = await createTestDatabase();
    const jobId = randomUUID();
    await insertJob(db, { id: jobId, name: 'history' });
    // through the triggers, as runs are made: queued (a row of the log), started, then finished (seqs on the row)
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(1, $2)`,
      [jobId, RUNS],
    );
    await db.sql(`UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'w'`);
    await db.sql(`UPDATE executions SET status = 'SUCCEEDED', finished_at = now(), exit_code = 0`);
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(0, $2)`,
      [jobId, SHORT_RUNS],
    );
    await db.sql(`DO $$ DECLARE run uuid; BEGIN
      FOR run IN SELECT id FROM executions WHERE status = 'QUEUED' LOOP
        UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'w' WHERE id = run;
        UPDATE executions SET status = 'SUCCEEDED', finished_at = now(), exit_code = 0 WHERE id = run AND
          EXISTS (SELECT 1 FROM executions WHERE status = 'QUEUED');
      END LOOP; END $$`);
    // vacuumed until every page of the history is all-visible (an autovacuum's snapshot can hold a first pass back),
    // as the history a reader catches up on is: the ends' index then answers for the rows it passes over
    for (let pass = 0; pass < 50; pass++) {
      await db.sql('VACUUM ANALYZE executions, event_log');
      const { rows } = await db.sql(`SELECT bool_and(relallvisible >= relpages) AS done FROM pg_class
        WHERE oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'executions_history'::regclass)`);
      if ((rows[0] as { done: boolean }).done) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    newest = Number((await db.sql(`SELECT max(seq) AS seq FROM events`)).rows[0].seq);
    const { rows } = await db.sql(
      `SELECT count(*)::int AS days FROM pg_inherits WHERE inhparent IN ('event_log'::regclass, 'executions_history'::regclass)`,
    );
    days = (rows[0] as { days: number }).days;
  }, 120_000);
  afterAll(() => db?.drop());

  it('holds three events for each run, in the order of the changes', async () => {
    const { rows } = await db.sql(
      `SELECT type, count(*)::int AS n, min(seq) AS first FROM events WHERE execution_id IS NOT NULL GROUP BY type ORDER BY min(seq)`,
    );
    expect(rows.map((r) => [r.type, r.n])).toEqual([
      ['execution.queued', RUNS + SHORT_RUNS + 1],
      ['execution.running', RUNS + SHORT_RUNS + 1],
      ['execution.succeeded', RUNS + SHORT_RUNS],
    ]);
    expect(newest).toBeGreaterThanOrEqual(3 * (RUNS + SHORT_RUNS));
  });

  it('keeps in the index of starts only the runs whose start is far from their end', async () => {
    const { rows } = await db.sql(
      `SELECT pg_get_expr(indpred, indrelid) AS predicate FROM pg_index WHERE indexrelid = 'executions_started_seq_idx'::regclass`,
    );
    expect(rows[0].predicate).toBe(`((finished_seq - started_seq) > ${START_TO_END_SEQS})`);
    const kept = await db.sql(`SELECT count(*)::int AS n FROM executions WHERE finished_seq - started_seq > $1`, [
      START_TO_END_SEQS,
    ]);
    expect(kept.rows[0].n).toBeGreaterThanOrEqual(RUNS / 2);
    expect(kept.rows[0].n).toBeLessThanOrEqual(RUNS);
  });

  it.each([
    ['from the first event', () => 0, 100],
    ['from among the short runs', () => newest - 2_000, 7],
  ])('pages %s answer every event once, in order', async (_, after, limit) => {
    const { rows } = await db.sql(`SELECT seq FROM events WHERE seq > $1 ORDER BY seq`, [after()]);
    const read: number[] = [];
    for (let cursor = after(); ;) {
      const page = (await db.sql(AFTER, [cursor, NO_BOUND, limit])).rows.map((r) => Number(r.seq));
      if (page.length === 0) break;
      read.push(...page);
      cursor = page[page.length - 1]!;
    }
    expect(read).toEqual(rows.map((r) => Number(r.seq)));
  });

  it.each([
    ['from the first event', () => 0],
    ['from the middle of the history', () => Math.floor(newest / 2)],
    ['near its end', () => newest - 50],
  ])('a page of 100 %s reads a few pages, not the history', async (_, after) => {
    const read = await planCost(db.sql, AFTER, [after(), NO_BOUND, 100]);
    expect(read.rows).toBe(Math.min(100, newest - after()));
    // the ends' index past the ends read: START_TO_END_SEQS entries of about 44 bytes, 185 a page
    expect(read.buffers).toBeLessThan(40 + 2 * days + START_TO_END_SEQS / 100);
  });

  it('the newest seq reads the end of each seq index', async () => {
    const read = await planCost(db.sql, LATEST);
    expect(read.rows).toBe(1);
    expect(read.buffers).toBeLessThan(10 + 2 * days);
  });
});
