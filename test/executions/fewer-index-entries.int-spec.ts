import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { START_TO_END_SEQS } from '../../src/events/infrastructure/sql-event-log.js';
import { SqlHistoryDays } from '../../src/executions/infrastructure/sql-history-days.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { runBySql, walSpanOf } from '../support/runs-by-sql.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'FewerIndexEntries1766516400000';
const T0 = new Date('2026-12-01T03:00:05.000Z');

/**
 * What a run writes into indexes, read from the WAL by index: a run that succeeds enters neither
 * index of starts (its start is read beside its end), nor the index by status (which keeps the
 * runs that did not succeed), nor that of failed runs by end; as it starts, it enters the primary
 * key and the running runs' index, not the queued runs' index by job. A run whose end comes long
 * after its start, and one that fails, do.
 */
describe('the index entries of a run', () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    await db.sql('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    jobId = await insertJob(db, { id: randomUUID(), name: 'entries' });
  });
  afterAll(() => closeMigratable(db, source));

  const { queue: queueOf, start, finish } = runBySql(() => db, T0);
  const queue = () => queueOf(jobId);
  const run = async (status: 'SUCCEEDED' | 'FAILED' = 'SUCCEEDED', between?: () => Promise<unknown>) => {
    const id = await queue();
    await start(id);
    await between?.();
    await finish(id, status);
  };

  /** The B-tree entries `write` inserted in this database, by index, sorted. */
  const indexEntries = async (write: () => Promise<unknown>): Promise<string[]> => {
    const { from, to } = await walSpanOf(db, write);
    const { rows } = await db.sql(
      `SELECT i.inhparent::regclass::text AS parent, c.relname
         FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r
         CROSS JOIN LATERAL regexp_match(r.block_ref, 'rel \\d+/(\\d+)/(\\d+)') AS block (ref)
         JOIN pg_class c ON c.relfilenode = block.ref[2]::oid
         LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
        WHERE r.resource_manager = 'Btree' AND r.record_type IN ('INSERT_LEAF', 'INSERT_POST')
          AND block.ref[1]::oid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [from, to],
    );
    // a day's index is named by PostgreSQL; its parent on the history is named by the migrations
    return rows.map((row: { parent: string | null; relname: string }) => row.parent ?? row.relname).sort();
  };

  const QUEUE_AND_START = [
    'event_log_pkey',
    'executions_claim_idx',
    'executions_pkey',
    'executions_pkey',
    'executions_queued_job_newest_idx',
    'executions_running_idx',
  ];
  const MOVE = [
    'executions_finished_seq_idx',
    'executions_history_id_idx',
    'executions_job_newest_idx',
    'executions_newest_idx',
  ];

  it('a run that succeeds: 10 entries, none for its start seq, status, due, run in the log, worker or end by job', async () => {
    const entries = await indexEntries(() => run());
    expect(entries).toEqual([...QUEUE_AND_START, ...MOVE].sort());
  });

  /** The index entries of a running run's lease renewal. */
  const renewalEntries = async (): Promise<string[]> => {
    const id = await queue();
    await start(id);
    const entries = await indexEntries(() =>
      db.sql(
        `UPDATE executions SET lease_expires_at = lease_expires_at + interval '1 min' WHERE id = $1 AND status = 'RUNNING'`,
        [id],
      ),
    );
    await finish(id);
    return entries;
  };

  it("a lease's renewal enters no index: nothing indexed holds the lease, so it is a HOT update", async () => {
    expect(await renewalEntries()).toEqual([]);
  });

  it("the queue partition indexed by job as one index again, undone: the start enters it and the leases' index", async () => {
    await undoFrom(source, 'QueuedRunsByJob1766559600000');
    try {
      const entries = await indexEntries(() => run());
      expect(
        entries.filter((name) => name.startsWith('executions_active') || name === 'executions_running_idx'),
      ).toEqual(['executions_active_job_newest_idx', 'executions_active_job_newest_idx', 'executions_running_idx']);
      expect(await renewalEntries()).toEqual([
        'executions_active_job_newest_idx',
        'executions_pkey',
        'executions_running_idx',
      ]);
    } finally {
      await source.runMigrations({ transaction: 'all' });
    }
    expect(await indexEntries(() => run())).toEqual([...QUEUE_AND_START, ...MOVE].sort());
  });

  it('a run that fails enters the index by status and the index of failed runs too (and its job becomes one with failures)', async () => {
    expect(await indexEntries(() => run('FAILED'))).toEqual(
      [
        ...QUEUE_AND_START,
        ...MOVE,
        'executions_failed_idx',
        'executions_status_newest_idx',
        'job_outcomes_failing_idx',
        'job_outcomes_pkey',
      ].sort(),
    );
  });

  it('a run that a limit holds waits in its lane and in the index of dues, not in the claim index', async () => {
    const limited = () =>
      db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at, max_concurrent)
         VALUES ($1, $2, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', $3, $3, 1)`,
        [randomUUID(), jobId, T0],
      );
    const queuedEntries = await indexEntries(limited);
    expect(queuedEntries).toEqual(
      expect.arrayContaining(['executions_claim_lane_idx', 'executions_due_idx', 'executions_pkey']),
    );
    expect(queuedEntries).not.toContain('executions_claim_idx');
    expect(await indexEntries(queue)).not.toContain('executions_due_idx');
  });

  it(`a run that ends more than ${START_TO_END_SEQS} seqs after it started enters the index of starts`, async () => {
    const others = async () => {
      await db.sql(`SELECT setval('orbit_event_seq', nextval('orbit_event_seq') + $1)`, [START_TO_END_SEQS]);
    };
    expect(await indexEntries(() => run('SUCCEEDED', others))).toEqual(
      [...QUEUE_AND_START, ...MOVE, 'executions_started_seq_idx'].sort(),
    );
  });

  it('a run that ends in a day, made ahead by the migrations or by Orbit, writes nothing to the block range index of ends', async () => {
    const brinRecords = async (at: Date) => {
      const later = runBySql(() => db, at);
      const { from, to } = await walSpanOf(db, async () => {
        const id = await later.queue(jobId);
        await later.start(id);
        await later.finish(id);
      });
      const { rows } = await db.sql(
        `SELECT count(*)::int AS n FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) r
          WHERE r.resource_manager = 'BRIN'
            AND r.block_ref ~ ('rel \\d+/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/')`,
        [from, to],
      );
      return rows[0].n as number;
    };
    const ahead = new Date(Date.UTC(2031, 5, 1));
    await new SqlHistoryDays(new Database(source)).make([
      { start: ahead, end: new Date(ahead.getTime() + 24 * 3600_000) },
    ]);
    expect(await brinRecords(new Date())).toBe(0);
    expect(await brinRecords(new Date(ahead.getTime() + 3600_000))).toBe(0);
    const { rows } = await db.sql(
      `SELECT tableoid::regclass::text AS day FROM executions WHERE job_id = $1 AND status = 'SUCCEEDED' ORDER BY created_at DESC LIMIT 1`,
      [jobId],
    );
    expect(rows).toEqual([{ day: 'executions_h_20310601' }]);
  });

  it('goes back to the indexes of before and forward again, the stream unchanged each way', async () => {
    const stream = async () =>
      (await db.sql(`SELECT * FROM events WHERE job_id = $1 ORDER BY seq`, [jobId])).rows.map((row) =>
        JSON.stringify(row),
      );
    const running = await queue();
    await start(running);
    const before = await stream();
    expect(before.length).toBeGreaterThanOrEqual(3 * 3 + 2);

    await undoFrom(source, MIGRATION);
    expect(await stream()).toEqual(before);
    expect(await indexEntries(() => run())).toContain('executions_active_started_seq_idx');
    const undone = await stream();

    await source.runMigrations({ transaction: 'all' });
    expect(await stream()).toEqual(undone);
    expect(await indexEntries(() => run())).toEqual([...QUEUE_AND_START, ...MOVE].sort());
  });
});
