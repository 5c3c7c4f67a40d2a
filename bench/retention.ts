/**
 * Retention of one day of the history holding `BENCH_RETENTION_ROWS` finished runs (seeded by SQL
 * through the triggers, so with their events; one in ten with output) of 1,000 jobs: how long dropping the day takes,
 * keepers included (each job's newest are in the next day, and one run in a thousand of the day
 * ended after retention's line). In a database of its own on the bench's PostgreSQL.
 */
import { DataSource } from 'typeorm';
import { HistoryDay } from '../src/executions/domain/history-day.js';
import { SqlExecutionReadModel } from '../src/executions/infrastructure/sql-execution-read-model.js';
import { SqlHistoryDays } from '../src/executions/infrastructure/sql-history-days.js';
import { dataSourceOptions } from '../src/postgres/data-source-options.js';
import { Database } from '../src/shared/infrastructure/database.js';
import { Bench, log, onOwnDatabase } from './support.js';

const DATABASE = 'orbit_bench_retention';
const JOBS = 1_000;
const KEEP_PER_JOB = 10;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Days far ahead of any the migrations made, so that the scenario makes its own. */
const DAY: HistoryDay = { start: new Date('2040-01-01T00:00:00Z'), end: new Date('2040-01-02T00:00:00Z') };
const NEXT: HistoryDay = { start: DAY.end, end: new Date(DAY.end.getTime() + DAY_MS) };
/** Days made empty after them: a reader's cost per day kept. */
const MORE_DAYS = 30;
const READS = 2_000;

/** Microseconds per read of a run by id and of a page of 50 of a job's runs, each `READS` times, one at a time. */
async function readCosts(
  reads: SqlExecutionReadModel,
  ids: string[],
  jobIds: string[],
): Promise<{ byId: number; byJob: number }> {
  const timed = async (read: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 100; i++) await read(i);
    const began = process.hrtime.bigint();
    for (let i = 0; i < READS; i++) await read(i);
    return Number(process.hrtime.bigint() - began) / 1e3 / READS;
  };
  return {
    byId: await timed((i) => reads.findJson(ids[i % ids.length]!)),
    byJob: await timed((i) => reads.listJson({ jobId: jobIds[i % jobIds.length] }, { limit: 50 })),
  };
}

export async function runRetention(bench: Bench): Promise<void> {
  const rows = bench.settings.retentionRows;
  await onOwnDatabase(bench, DATABASE, async (url) => {
    const source = new DataSource(dataSourceOptions(url, 2));
    await source.initialize();
    try {
      await source.runMigrations({ transaction: 'all' });
      const days = new SqlHistoryDays(new Database(source));
      await days.make([DAY, NEXT]);
      // days go oldest first: the migration's days (empty) go before the scenario's
      for (const older of (await days.list()).filter((stored) => stored.start < DAY.start)) {
        await days.drop(older, DAY.start, KEEP_PER_JOB);
      }
      log(`retention: seeding ${rows} finished runs of ${JOBS} jobs in one day, and ${KEEP_PER_JOB} newer per job`);
      await source.query(
        `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
           misfire_policy, concurrency_policy, created_at, updated_at)
         SELECT gen_random_uuid(), 'retention-' || g, 'true', '* * * * *', 'UTC', 0, 60, false, 'RUN_ONCE', 'ALLOW', now(), now()
           FROM generate_series(1, $1::int) AS g`,
        [JOBS],
      );
      const seed = (count: number, from: Date, span: number, late: boolean) =>
        source.query(
          `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
             created_at, started_at, finished_at, exit_code, worker_id, version)
           SELECT gen_random_uuid(), j.id, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', t.at, t.at, t.at,
                  CASE WHEN $4 AND g % 1000 = 0 THEN $2::timestamptz + interval '3 days' ELSE t.at + interval '20 ms' END, 0, 'w', 3
             FROM generate_series(0, $1::int - 1) AS g
             JOIN LATERAL (SELECT $2::timestamptz + (g::double precision / $1) * $3 * interval '1 ms' AS at) AS t ON true
             JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM jobs) AS j ON j.n = g % ${JOBS}
            ORDER BY 12`, // by their end, as runs enter the history: those that ended late come last
          [count, from, span, late],
        );
      await seed(rows, DAY.start, DAY_MS - 1000, true);
      await seed(JOBS * KEEP_PER_JOB, NEXT.start, DAY_MS / 2, false);
      // one run in ten printed something
      await source.query(
        `INSERT INTO execution_outputs (execution_id, created_at, stdout, stderr, truncated, updated_at)
         SELECT id, created_at, 'line ' || id, '', false, finished_at FROM executions_history
          WHERE created_at >= $1 AND created_at < $2 AND get_byte(uuid_send(id), 15) < 26`,
        [DAY.start, NEXT.end],
      );
      await source.query('VACUUM (ANALYZE) executions');
      await source.query('VACUUM (ANALYZE) event_log');
      const reads = new SqlExecutionReadModel(new Database(source));
      const ids = (await source.query<{ id: string }[]>(`SELECT id FROM executions_h_20400101 LIMIT 1000`)).map(
        (r) => r.id,
      );
      const jobIds = (await source.query<{ id: string }[]>(`SELECT id FROM jobs`)).map((r) => r.id);
      const leaves = async () =>
        (
          await source.query<[{ n: number }]>(
            `SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = 'executions_history'::regclass`,
          )
        )[0].n;
      const fewer = { leaves: await leaves(), ...(await readCosts(reads, ids, jobIds)) };
      await days.make(
        Array.from({ length: MORE_DAYS }, (_, i) => ({
          start: new Date(NEXT.end.getTime() + i * DAY_MS),
          end: new Date(NEXT.end.getTime() + (i + 1) * DAY_MS),
        })),
      );
      const more = { leaves: await leaves(), ...(await readCosts(reads, ids, jobIds)) };
      bench.report.figure('retention reads', { fewer, more });
      for (const [what, key] of [
        ['a run by id', 'byId'],
        ['a page of 50 runs of a job', 'byJob'],
      ] as const) {
        bench.report.add({
          scenario: 'retention',
          measure: `read ${what}, one at a time, with ${fewer.leaves} then ${more.leaves} partitions in the history`,
          figure: `${fewer[key].toFixed(0)} µs → ${more[key].toFixed(0)} µs`,
          target: 'report',
          ratio: `${(more[key] / fewer[key]).toFixed(2)}×`,
          verdict: 'info',
        });
      }
      const [{ bytes }] = await source.query<[{ bytes: string }]>(
        `SELECT pg_total_relation_size('executions_h_20400101') AS bytes`,
      );
      log(`retention: dropping the day (${(Number(bytes) / 1e6).toFixed(0)} MB)`);
      const began = process.hrtime.bigint();
      const result = await days.drop(DAY, new Date(NEXT.start.getTime() + DAY_MS / 2), KEEP_PER_JOB);
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      if (result === null) throw new Error('the drop found the days locked');
      bench.report.figure('retention', {
        rows,
        jobs: JOBS,
        keepPerJob: KEEP_PER_JOB,
        bytes: Number(bytes),
        seconds,
        ...result,
      });
      bench.report.add({
        scenario: 'retention',
        measure: `drop a day of ${rows} runs (${(Number(bytes) / 1e6).toFixed(0)} MB) with their events and output, ${result.kept} kept`,
        figure: `${seconds.toFixed(2)} s`,
        target: '< 1 s',
        ratio: '',
        verdict: seconds < 1 ? 'met' : 'not met',
      });
    } finally {
      await source.destroy();
    }
  });
}
