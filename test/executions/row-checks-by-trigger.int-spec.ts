import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'RowChecksByTrigger1766523600000';
const QUEUED = `'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now()`;

/**
 * Each rule of a row of executions, broken alone by an insert (columns, and what they are set
 * to). `executions_status_check` is not here: a status outside the lifecycle finds no partition on
 * insert, and no edge of the guard on update, before any rule is read.
 */
const BROKEN: [string, string, string][] = [
  ['executions_attempt_check', 'attempt', '0'],
  ['executions_failure_cause_check', 'failure_cause', `'bogus'`],
  ['executions_lease_check', 'lease_expires_at', 'now()'],
  ['executions_max_duration_seconds_check', 'max_duration_seconds', '0'],
  ['executions_max_retries_check', 'max_retries', '101'],
  ['executions_retry_of_check', 'retry_of', `'${randomUUID()}'`],
  ['executions_schedule_slot_check', 'scheduled_for', 'now()'],
  ['executions_shape_check', 'started_at', 'now()'],
  ['executions_timeout_seconds_check', 'timeout_seconds', '0'],
  ['executions_trigger_check', 'trigger', `'BOGUS'`],
  ['executions_triggered_by_check', 'triggered_by', `'${randomUUID()}'`],
];

/**
 * The rules of a row of executions are checked by a row trigger (PostgreSQL prepares CHECK
 * constraints anew for every statement), and a writer sees what a CHECK constraint showed it.
 */
describe('the rules of a row of executions, checked by a trigger', () => {
  let db: TestDatabase;
  let source: DataSource;
  let jobId: string;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
    jobId = await insertJob(db, { id: randomUUID(), name: 'rules' });
  });
  afterAll(() => closeMigratable(db, source));

  /** A queued run of the job, with `column` set to `value` (given as SQL). */
  const insert = (column: string, value: string) => {
    const columns = `id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at`;
    const values = `$1, $2, ${QUEUED}`;
    const names = columns.split(', ');
    const at = names.indexOf(column);
    const sql =
      at >= 0
        ? `INSERT INTO executions (${columns}) VALUES (${values
            .split(', ')
            .map((given, i) => (i === at ? value : given))
            .join(', ')})`
        : `INSERT INTO executions (${columns}, ${column}) VALUES (${values}, ${value})`;
    return db.sql(sql, [randomUUID(), jobId]);
  };
  const refusal = (name: string, relation = 'executions_active') => ({
    code: '23514',
    constraint: name,
    message: `new row for relation "${relation}" violates check constraint "${name}"`,
  });

  it('executions keeps no CHECK constraint, and every partition, the days made later too, has the trigger, always on', async () => {
    const { rows: checks } = await db.sql(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'executions'::regclass AND contype = 'c'`,
    );
    expect(checks).toEqual([]);
    await db.sql(`CREATE TABLE executions_h_20991231 PARTITION OF executions_history
      FOR VALUES FROM ('2099-12-31T00:00:00Z') TO ('2100-01-01T00:00:00Z')`);
    const { rows } = await db.sql(
      `WITH RECURSIVE tree AS (SELECT 'executions'::regclass AS rel
                               UNION ALL SELECT i.inhrelid::regclass FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
       SELECT tree.rel::text AS rel, t.tgenabled AS enabled
         FROM tree LEFT JOIN pg_trigger t ON t.tgrelid = tree.rel AND t.tgname = 'executions_valid_row'`,
    );
    expect(rows.length).toBeGreaterThan(4);
    expect(rows.filter((row: { enabled: string | null }) => row.enabled !== 'A')).toEqual([]);
  });

  it('a well-formed queued run is accepted', async () => {
    await expect(insert('command', `'true'`)).resolves.toMatchObject({ rowCount: 1 });
  });

  it.each(BROKEN)('%s refuses a row with %s = %s, as the constraint did', async (name, column, value) => {
    await expect(insert(column, value)).rejects.toMatchObject(refusal(name));
  });

  it('an update is held to the rules too, and leaves the row alone', async () => {
    const id = randomUUID();
    await db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES ($1, $2, ${QUEUED})`,
      [id, jobId],
    );
    await expect(db.sql(`UPDATE executions SET attempt = 0 WHERE id = $1`, [id])).rejects.toMatchObject(
      refusal('executions_attempt_check'),
    );
    // a move to RUNNING without its start: the guard lets the move through, the shape refuses it
    await expect(db.sql(`UPDATE executions SET status = 'RUNNING' WHERE id = $1`, [id])).rejects.toMatchObject(
      refusal('executions_shape_check'),
    );
    const { rows } = await db.sql(`SELECT status, attempt FROM executions WHERE id = $1`, [id]);
    expect(rows).toEqual([{ status: 'QUEUED', attempt: 1 }]);
  });

  it('a bulk load with triggers off (session_replication_role = replica) is held to them, in a day made later', async () => {
    await db.sql(`SET session_replication_role = replica`);
    try {
      await expect(
        db.sql(
          `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
             due_at, created_at, started_at, finished_at, exit_code, worker_id)
           VALUES ($1, $2, 'true', 0, 60, 'FAILED', 1, 'MANUAL', $3, $3, $3, $3, 1, 'loader')`,
          [randomUUID(), jobId, new Date('2099-12-31T12:00:00Z')],
        ),
      ).rejects.toMatchObject(refusal('executions_shape_check', 'executions_h_20991231'));
    } finally {
      await db.sql(`RESET session_replication_role`);
    }
  });

  it('goes back to the CHECK constraints, which refuse alike, and forward again', async () => {
    await undoFrom(source, MIGRATION);
    const { rows } = await db.sql(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'executions'::regclass AND contype = 'c' ORDER BY conname`,
    );
    expect(rows.map((row: { conname: string }) => row.conname)).toEqual(
      [...BROKEN.map(([name]) => name), 'executions_status_check'].sort(),
    );
    for (const [name, column, value] of BROKEN)
      await expect(insert(column, value)).rejects.toMatchObject(refusal(name));

    await source.runMigrations({ transaction: 'all' });
    for (const [name, column, value] of BROKEN)
      await expect(insert(column, value)).rejects.toMatchObject(refusal(name));
    const { rows: after } = await db.sql(
      `SELECT count(*)::int AS checks FROM pg_constraint WHERE conrelid = 'executions'::regclass AND contype = 'c'`,
    );
    expect(after).toEqual([{ checks: 0 }]);
  });
});
