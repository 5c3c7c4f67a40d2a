import { MigrationInterface, QueryRunner } from 'typeorm';

/** A table partitioned by UTC day like the history: its leaves' prefix and its partition key. */
interface DayTable {
  table: string;
  prefix: string;
  key: string;
  /** Its indexes by name, the primary key apart; the same on the legacy leaf, renamed there. */
  indexes: [string, string][];
  /** Indexes it gains, built on the legacy leaf as it is attached. */
  newIndexes: [string, string][];
  /** Its primary key, with the partition key (a unique index of a partitioned table must hold it). */
  primaryKey: string;
  /** The name of its primary key before. */
  oldPrimaryKey: string;
}

const EVENTS: DayTable = {
  table: 'event_log',
  prefix: 'event_log',
  key: 'at',
  indexes: [
    ['events_execution_idx', '(execution_id)'],
    ['events_job_changes_idx', '(at) WHERE execution_id IS NULL'],
    ['events_job_pauses_idx', `(job_id, at) WHERE type IN ('job.paused', 'job.resumed')`],
    ['events_job_slot_idx', '(job_id, slot) WHERE slot IS NOT NULL'],
  ],
  /** Events of a run that are not its creation's (notices): few, and kept with their run when a day goes. */
  newIndexes: [
    [
      'events_notices_idx',
      `(execution_id) WHERE execution_id IS NOT NULL
         AND type NOT IN ('execution.queued', 'execution.running', 'execution.succeeded', 'execution.failed', 'execution.cancelled')`,
    ],
  ],
  primaryKey: '(seq, at)',
  oldPrimaryKey: 'events_pkey',
};

const OUTPUTS: DayTable = {
  table: 'execution_outputs',
  prefix: 'execution_outputs',
  key: 'created_at',
  indexes: [],
  newIndexes: [],
  primaryKey: '(execution_id, created_at)',
  oldPrimaryKey: 'execution_outputs_pkey',
};

const OUTPUT_EXISTS_TRIGGER = `CREATE TRIGGER execution_outputs_execution_exists AFTER INSERT ON execution_outputs
  FOR EACH ROW EXECUTE FUNCTION orbit_check_output_execution()`;

/** The check that an output's run exists; `table`, what its refusal names (a partition's TG_TABLE_NAME is the partition). */
const outputExistsCheck = (table: string) => `
  CREATE OR REPLACE FUNCTION orbit_check_output_execution() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM executions WHERE id = NEW.execution_id FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'execution % does not exist', NEW.execution_id
        USING ERRCODE = 'foreign_key_violation', TABLE = ${table}, CONSTRAINT = 'execution_outputs_execution_id_fkey';
    END IF;
    RETURN NULL;
  END $$`;

const legacyName = (name: string, table: DayTable) => name.replace(/^[a-z]+_/, `${table.prefix}_legacy_`);

/** The days the history has (HistoryByDay made them), so that a run, its events and its output share their days. */
async function historyDays(db: QueryRunner): Promise<{ start: Date; end: Date }[]> {
  return (await db.query(`
    SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS start,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS "end"
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'executions_history'::regclass AND c.relname ~ '^executions_h_[0-9]{8}$'
     ORDER BY 1`)) as { start: Date; end: Date }[];
}

/**
 * The table becomes partitioned by `key` like the history: the table itself the legacy leaf up to
 * `bound` (attached after a validated check, its indexes adopted; only the primary key, which must
 * now hold the key, is built), the history's days, and a DEFAULT leaf.
 */
async function partition(db: QueryRunner, t: DayTable, bound: Date, days: { start: Date; end: Date }[]): Promise<void> {
  const legacy = `${t.prefix}_legacy`;
  await db.query(`ALTER TABLE ${t.table} RENAME TO ${legacy}`);
  for (const [name] of t.indexes) await db.query(`ALTER INDEX ${name} RENAME TO ${legacyName(name, t)}`);
  await db.query(`ALTER INDEX ${t.oldPrimaryKey} RENAME TO ${legacy}_old_pkey`);
  await db.query(
    `CREATE TABLE ${t.table} (LIKE ${legacy} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (${t.key})`,
  );
  await db.query(`ALTER TABLE ${t.table} ADD CONSTRAINT ${t.table}_pkey PRIMARY KEY ${t.primaryKey}`);
  for (const [name, shape] of [...t.indexes, ...t.newIndexes]) {
    await db.query(`CREATE INDEX ${name} ON ${t.table} ${shape}`);
  }
  await db.query(
    `ALTER TABLE ${legacy} ADD CONSTRAINT ${legacy}_bound CHECK (${t.key} < '${bound.toISOString()}') NOT VALID`,
  );
  await db.query(`ALTER TABLE ${legacy} VALIDATE CONSTRAINT ${legacy}_bound`);
  // the primary key is built again with the partition key, as the attach adopts the indexes
  await db.query(`ALTER TABLE ${legacy} DROP CONSTRAINT ${legacy}_old_pkey`);
  await db.query(
    `ALTER TABLE ${t.table} ATTACH PARTITION ${legacy} FOR VALUES FROM (MINVALUE) TO ('${bound.toISOString()}')`,
  );
  await db.query(`ALTER TABLE ${legacy} DROP CONSTRAINT ${legacy}_bound`);
  for (const [name] of t.newIndexes) {
    const [{ built }] = (await db.query(
      `SELECT i.inhrelid::regclass::text AS built FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
        WHERE i.inhparent = $1::regclass AND x.indrelid = $2::regclass`,
      [name, legacy],
    )) as [{ built: string }];
    await db.query(`ALTER INDEX ${built} RENAME TO ${legacyName(name, t)}`);
  }
  for (const day of days.filter((d) => d.start >= bound)) {
    const name = `${t.prefix}_${day.start.toISOString().slice(0, 10).replace(/-/g, '')}`;
    await db.query(`CREATE TABLE ${name} PARTITION OF ${t.table}
      FOR VALUES FROM ('${day.start.toISOString()}') TO ('${day.end.toISOString()}')`);
  }
  await db.query(`CREATE TABLE ${t.prefix}_default PARTITION OF ${t.table} DEFAULT`);
}

/** Back to one table: every leaf's rows into the legacy leaf, which takes the table's name again. */
async function unpartition(db: QueryRunner, t: DayTable): Promise<void> {
  const legacy = `${t.prefix}_legacy`;
  const leaves = (await db.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [t.table],
  )) as { name: string }[];
  for (const { name } of leaves) await db.query(`ALTER TABLE ${t.table} DETACH PARTITION ${name}`);
  for (const { name } of leaves.filter((leaf) => leaf.name !== legacy)) {
    await db.query(`INSERT INTO ${legacy} SELECT * FROM ${name}`);
    await db.query(`DROP TABLE ${name}`);
  }
  await db.query(`DROP TABLE ${t.table}`);
  await db.query(`ALTER TABLE ${legacy} RENAME TO ${t.table}`);
  await db.query(`ALTER INDEX ${legacy}_pkey RENAME TO ${t.table}_pkey_with_key`);
  for (const [name] of t.indexes) await db.query(`ALTER INDEX ${legacyName(name, t)} RENAME TO ${name}`);
  for (const [name] of t.newIndexes) await db.query(`DROP INDEX ${legacyName(name, t)}`);
}

/**
 * Events (`event_log`, by the instant of the event: a run's queued event is at its creation) and
 * output (`execution_outputs`, by its run's creation, a new column) are partitioned by the
 * history's UTC days, so that retention drops a day of runs with their events and output, each a
 * whole partition. Both tables become their legacy leaf, attached; the primary keys are built
 * again with the partition key. The output kept before has no creation time (`-infinity`, in the
 * legacy leaf), but that of waiting and running runs, which is written on.
 *
 * `seq` was an identity of `event_log`; it is the same sequence (`orbit_event_seq`, which the
 * guard draws the rows' events from too), now the default of the column.
 */
export class EventsAndOutputByDay1766480400000 implements MigrationInterface {
  name = 'EventsAndOutputByDay1766480400000';

  async up(db: QueryRunner): Promise<void> {
    const [{ bound }] = (await db.query(`
      SELECT (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS bound
        FROM pg_class c WHERE c.relname = 'executions_h_legacy'`)) as [{ bound: Date }];
    const [{ latest }] = (await db.query(
      `SELECT date_trunc('day', max(at), 'UTC') + interval '24 hours' AS latest FROM event_log`,
    )) as [{ latest: Date | null }];
    // events dated after the history's first day (a clock ahead) stay in the legacy leaf
    const eventsBound = latest !== null && latest > bound ? latest : bound;
    const days = await historyDays(db);
    const [{ view }] = (await db.query(`SELECT pg_get_viewdef('events'::regclass) AS view`)) as [{ view: string }];
    await db.query(`DROP VIEW events`);

    const [{ last, called }] = (await db.query(
      `SELECT last_value::text AS last, is_called AS called FROM orbit_event_seq`,
    )) as [{ last: string; called: boolean }];
    await db.query(`CREATE SEQUENCE orbit_event_seq_free`);
    await db.query(`SELECT setval('orbit_event_seq_free', $1::bigint, $2)`, [last, called]);
    await db.query(`ALTER TABLE event_log ALTER COLUMN seq DROP IDENTITY`);
    await db.query(`ALTER SEQUENCE orbit_event_seq_free RENAME TO orbit_event_seq`);
    await partition(db, EVENTS, eventsBound, days);
    await db.query(`ALTER TABLE event_log ALTER COLUMN seq SET DEFAULT nextval('orbit_event_seq')`);
    await db.query(`CREATE VIEW events AS ${view}`);

    await db.query(`DROP TRIGGER execution_outputs_execution_exists ON execution_outputs`);
    await db.query(`ALTER TABLE execution_outputs ADD COLUMN created_at timestamptz NOT NULL DEFAULT '-infinity'`);
    await db.query(
      `UPDATE execution_outputs o SET created_at = e.created_at FROM executions_active e WHERE e.id = o.execution_id`,
    );
    await db.query(`ALTER TABLE execution_outputs ALTER COLUMN created_at DROP DEFAULT`);
    await partition(db, OUTPUTS, bound, days);
    await db.query(outputExistsCheck(`'execution_outputs'`));
    await db.query(OUTPUT_EXISTS_TRIGGER);
  }

  async down(db: QueryRunner): Promise<void> {
    const [{ view }] = (await db.query(`SELECT pg_get_viewdef('events'::regclass) AS view`)) as [{ view: string }];
    await db.query(`DROP VIEW events`);
    await unpartition(db, EVENTS);
    await db.query(`ALTER TABLE event_log DROP CONSTRAINT event_log_pkey_with_key`);
    await db.query(`ALTER TABLE event_log ADD CONSTRAINT events_pkey PRIMARY KEY (seq)`);
    const [{ last }] = (await db.query(`SELECT last_value::text AS last FROM orbit_event_seq`)) as [{ last: string }];
    await db.query(`ALTER TABLE event_log ALTER COLUMN seq DROP DEFAULT`);
    await db.query(`DROP SEQUENCE orbit_event_seq`);
    await db.query(
      `ALTER TABLE event_log ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME orbit_event_seq)`,
    );
    await db.query(`SELECT setval('orbit_event_seq', $1::bigint)`, [last]);
    await db.query(`CREATE VIEW events AS ${view}`);

    await unpartition(db, OUTPUTS);
    await db.query(`ALTER TABLE execution_outputs DROP CONSTRAINT execution_outputs_pkey_with_key`);
    await db.query(`ALTER TABLE execution_outputs ADD CONSTRAINT execution_outputs_pkey PRIMARY KEY (execution_id)`);
    await db.query(`ALTER TABLE execution_outputs DROP COLUMN created_at`);
    await db.query(outputExistsCheck('TG_TABLE_NAME'));
    await db.query(OUTPUT_EXISTS_TRIGGER);
  }
}
