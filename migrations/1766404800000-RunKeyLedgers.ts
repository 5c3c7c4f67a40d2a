import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A slot fires once and an upstream run starts a chained job once: until now two partial unique
 * indexes of `executions` said so. Each run of a slot or a chain entered them at every version
 * (queued, started, finished: three entries), and a unique index that spans the whole history
 * cannot stay on a table whose history is split into partitions. The keys move to two ledgers,
 * one row per scheduled or chained run, written once, beside the run:
 *
 * - `execution_slots (job_id, slot, pinned)`: a SCHEDULE or BACKFILL run of a job's slot (per
 *   pinned worker, '' for none). Its primary key keeps the old index's name.
 * - `execution_chains (job_id, triggered_by)`: a CHAIN run of a job for an upstream run.
 *
 * A BEFORE INSERT trigger takes the run's key; a key another run holds skips the row (the insert
 * stores nothing and returns nothing for it, which is what the scheduler, backfill and the chain
 * consumer asked of ON CONFLICT DO NOTHING): the database itself never holds a second run of a
 * key. A concurrent insert of the same key waits for the first to commit or roll back, as the
 * unique index made it. Deleting a run (retention, a job's deletion) releases its key; emptying
 * executions (TRUNCATE) empties the ledgers.
 */
const UP = [
  `DROP INDEX executions_job_slot_key`,
  `DROP INDEX executions_chain_key`,
  `
  CREATE TABLE execution_slots (
    job_id uuid NOT NULL,
    slot timestamptz NOT NULL,
    pinned text NOT NULL,
    execution_id uuid NOT NULL,
    CONSTRAINT executions_job_slot_key PRIMARY KEY (job_id, slot, pinned)
  )`,
  `
  CREATE TABLE execution_chains (
    job_id uuid NOT NULL,
    triggered_by uuid NOT NULL,
    execution_id uuid NOT NULL,
    CONSTRAINT executions_chain_key PRIMARY KEY (job_id, triggered_by)
  )`,
  `
  INSERT INTO execution_slots (job_id, slot, pinned, execution_id)
  SELECT job_id, scheduled_for, coalesce(pinned_worker, ''), id FROM executions WHERE trigger IN ('SCHEDULE', 'BACKFILL')`,
  `
  INSERT INTO execution_chains (job_id, triggered_by, execution_id)
  SELECT job_id, triggered_by, id FROM executions WHERE trigger = 'CHAIN'`,
  `
  CREATE FUNCTION orbit_take_run_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.trigger = 'CHAIN' THEN
      INSERT INTO execution_chains (job_id, triggered_by, execution_id)
      VALUES (NEW.job_id, NEW.triggered_by, NEW.id) ON CONFLICT DO NOTHING;
    ELSE
      INSERT INTO execution_slots (job_id, slot, pinned, execution_id)
      VALUES (NEW.job_id, NEW.scheduled_for, coalesce(NEW.pinned_worker, ''), NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    IF NOT FOUND THEN
      RETURN NULL; -- another run holds the key: this one is not stored
    END IF;
    RETURN NEW;
  END $$`,
  `
  CREATE TRIGGER executions_take_run_key BEFORE INSERT ON executions
  FOR EACH ROW WHEN (NEW.trigger IN ('SCHEDULE', 'BACKFILL', 'CHAIN')) EXECUTE FUNCTION orbit_take_run_key()`,
  `
  CREATE FUNCTION orbit_release_run_keys() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM execution_slots s USING deleted_rows d
     WHERE d.trigger IN ('SCHEDULE', 'BACKFILL')
       AND s.job_id = d.job_id AND s.slot = d.scheduled_for AND s.pinned = coalesce(d.pinned_worker, '')
       AND s.execution_id = d.id;
    DELETE FROM execution_chains c USING deleted_rows d
     WHERE d.trigger = 'CHAIN' AND c.job_id = d.job_id AND c.triggered_by = d.triggered_by AND c.execution_id = d.id;
    RETURN NULL;
  END $$`,
  `
  CREATE TRIGGER executions_release_run_keys AFTER DELETE ON executions
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION orbit_release_run_keys()`,
  `
  CREATE FUNCTION orbit_clear_run_keys() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    TRUNCATE execution_slots, execution_chains;
    RETURN NULL;
  END $$`,
  `
  CREATE TRIGGER executions_clear_run_keys AFTER TRUNCATE ON executions
  FOR EACH STATEMENT EXECUTE FUNCTION orbit_clear_run_keys()`,
];

const DOWN = [
  `DROP TRIGGER executions_clear_run_keys ON executions`,
  `DROP FUNCTION orbit_clear_run_keys`,
  `DROP TRIGGER executions_release_run_keys ON executions`,
  `DROP FUNCTION orbit_release_run_keys`,
  `DROP TRIGGER executions_take_run_key ON executions`,
  `DROP FUNCTION orbit_take_run_key`,
  `DROP TABLE execution_chains`,
  `DROP TABLE execution_slots`,
  `CREATE UNIQUE INDEX executions_chain_key ON executions (job_id, triggered_by) WHERE trigger = 'CHAIN'`,
  `
  CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
   WHERE trigger IN ('SCHEDULE', 'BACKFILL')`,
];

export class RunKeyLedgers1766404800000 implements MigrationInterface {
  name = 'RunKeyLedgers1766404800000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of UP) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const statement of DOWN) await db.query(statement);
  }
}
