/**
 * The upgrade onto the queue and history partitions (migration QueueAndHistory), then onto the
 * history's days (HistoryByDay, EventsAndOutputByDay), then the history's indexes made anew
 * (FewerIndexEntries), the row checks by trigger, and the queue's index of dues and the log's
 * index by run made anew (DueIndexOfLimitedRuns, CreatedSeqOnTheRow), and the history's block range index of ends
 * and the index of failed runs by end (EndsByBlockRange, FailedRunsByEnd), of an installation that keeps
 * `BENCH_UPGRADE_ROWS` finished runs (each with its queued event, one in ten with output) and a few
 * thousand queued and running ones: how long each step holds the tables, per million runs kept. In a database of its own on the
 * bench's PostgreSQL, migrated to the schema before it, the history seeded by SQL.
 */
import pg from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../src/postgres/data-source-options.js';
import { Bench, log, onOwnDatabase } from './support.js';

const DATABASE = 'orbit_bench_upgrade';
const MIGRATION = 'QueueAndHistory1766433600000';
const ACTIVE_RUNS = 2_000;
/** The later steps, each timed apart: the history, then the events and output, partitioned by day; the history's indexes made anew. */
const LATER_STEPS = [
  ['HistoryByDay1766476800000', 'EventsAndOutputByDay1766480400000'],
  ['FewerIndexEntries1766516400000'],
  ['RowChecksByTrigger1766523600000'],
  ['DueIndexOfLimitedRuns1766530800000', 'CreatedSeqOnTheRow1766538000000'],
  ['EndsByBlockRange1766545200000', 'FailedRunsByEnd1766552400000'],
] as const;

async function migrated(url: string, until: number): Promise<void> {
  const source = new DataSource({ ...dataSourceOptions(url, 1), migrations: MIGRATIONS.slice(0, until) });
  await source.initialize();
  try {
    await source.runMigrations({ transaction: 'all' });
  } finally {
    await source.destroy();
  }
}

export async function runUpgrade(bench: Bench): Promise<void> {
  const rows = bench.settings.upgradeRows;
  await onOwnDatabase(bench, DATABASE, async (url) => {
    const index = MIGRATIONS.findIndex((migration) => migration.name === MIGRATION);
    await migrated(url, index);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      log(`upgrade: seeding ${rows} finished runs and ${ACTIVE_RUNS} queued and running ones`);
      const jobId = (
        await db.query<{ id: string }>(
          `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
             misfire_policy, concurrency_policy, created_at, updated_at)
           VALUES (gen_random_uuid(), 'upgrade', 'true', '* * * * *', 'UTC', 0, 60, false, 'RUN_ONCE', 'ALLOW', now(), now())
           RETURNING id`,
        )
      ).rows[0]!.id;
      await db.query(`SET session_replication_role = replica`);
      await db.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
           created_at, started_at, finished_at, exit_code, worker_id, version, started_seq, finished_seq)
         SELECT gen_random_uuid(), $1, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', at, at, at, at + interval '20 ms', 0, 'w',
                3, 2 * g, 2 * g + 1
           FROM generate_series(1, $2::int) AS g, LATERAL (SELECT now() - interval '30 days' + g * interval '1 s' AS at) AS t`,
        [jobId, rows],
      );
      await db.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
           created_at, started_at, worker_id, lease_expires_at, version)
         SELECT gen_random_uuid(), $1, 'true', 0, 60, CASE WHEN g % 2 = 0 THEN 'QUEUED' ELSE 'RUNNING' END, 1, 'MANUAL',
                now(), now(), CASE WHEN g % 2 = 1 THEN now() END, CASE WHEN g % 2 = 1 THEN 'w' END,
                CASE WHEN g % 2 = 1 THEN now() + interval '1 min' END, 1
           FROM generate_series(1, $2::int) AS g`,
        [jobId, ACTIVE_RUNS],
      );
      // each run's queued event, and the output of one run in ten, for the migrations onto the days
      await db.query(
        `INSERT INTO event_log (type, at, job_id, execution_id, to_status, attempt, trigger)
         SELECT 'execution.queued', created_at, job_id, id, 'QUEUED', 1, 'MANUAL' FROM executions`,
      );
      await db.query(
        `INSERT INTO execution_outputs (execution_id, stdout, stderr, truncated, updated_at)
         SELECT id, 'line', '', false, created_at FROM executions WHERE get_byte(uuid_send(id), 15) < 26`,
      );
      await db.query(`RESET session_replication_role`);
      await db.query('VACUUM (ANALYZE) executions');
      await db.query('VACUUM (ANALYZE) event_log');
      const bytes = Number(
        (await db.query<{ bytes: string }>(`SELECT pg_total_relation_size('executions') AS bytes`)).rows[0]!.bytes,
      );
      log(`upgrade: running ${MIGRATION}`);
      const began = process.hrtime.bigint();
      await migrated(url, index + 1);
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      const perMillion = (seconds * 1_000_000) / rows;
      bench.report.figure('upgrade', { rows, activeRuns: ACTIVE_RUNS, tableBytes: bytes, seconds, perMillion });
      bench.report.add({
        scenario: 'upgrade',
        measure: `migration ${MIGRATION} behind ${rows} finished runs (${(bytes / 1e6).toFixed(0)} MB) and ${ACTIVE_RUNS} active`,
        figure: `${seconds.toFixed(2)} s, ${perMillion.toFixed(2)} s per million runs`,
        target: 'report',
        ratio: '',
        verdict: 'info',
      });
      for (const step of LATER_STEPS) await laterUpgrade(bench, url, rows, step);
    } finally {
      await db.end();
    }
  });
}

/** Migrations after the one above, `step` (in order): how long they hold the tables, per million runs. */
async function laterUpgrade(bench: Bench, url: string, rows: number, step: readonly string[]): Promise<void> {
  const first = MIGRATIONS.findIndex((migration) => migration.name === step[0]);
  const last = MIGRATIONS.findIndex((migration) => migration.name === step[step.length - 1]);
  await migrated(url, first);
  log(`upgrade: running ${step.join(' and ')}`);
  const began = process.hrtime.bigint();
  await migrated(url, last + 1);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const perMillion = (seconds * 1_000_000) / rows;
  bench.report.figure(`upgrade ${step.join(', ')}`, { rows, seconds, perMillion });
  bench.report.add({
    scenario: 'upgrade',
    measure: `migration${step.length > 1 ? 's' : ''} ${step.join(' and ')} behind ${rows} finished runs, their events and output`,
    figure: `${seconds.toFixed(2)} s, ${perMillion.toFixed(2)} s per million runs`,
    target: 'report',
    ratio: '',
    verdict: 'info',
  });
}
