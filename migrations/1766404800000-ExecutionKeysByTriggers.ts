import { MigrationInterface, QueryRunner } from 'typeorm';

/** What a foreign key checked: the run the new row names exists, and stays until this commits. */
function referenceCheck(name: string, column: string, constraint: string): string {
  return `
  CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM executions WHERE id = NEW.${column} FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'execution % does not exist', NEW.${column}
        USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = '${constraint}';
    END IF;
    RETURN NULL;
  END $$`;
}

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
  `ALTER TABLE executions DROP CONSTRAINT executions_retry_of_fkey`,
  `ALTER TABLE execution_outputs DROP CONSTRAINT execution_outputs_execution_id_fkey`,
  referenceCheck('orbit_check_retry_of', 'retry_of', 'executions_retry_of_fkey'),
  `
  CREATE TRIGGER executions_retry_of_exists AFTER INSERT ON executions
  FOR EACH ROW WHEN (NEW.retry_of IS NOT NULL) EXECUTE FUNCTION orbit_check_retry_of()`,
  referenceCheck('orbit_check_output_execution', 'execution_id', 'execution_outputs_execution_id_fkey'),
  // an output's first write, not each of its updates (an upsert that updates fires no INSERT trigger after it)
  `
  CREATE TRIGGER execution_outputs_execution_exists AFTER INSERT ON execution_outputs
  FOR EACH ROW EXECUTE FUNCTION orbit_check_output_execution()`,
  `
  CREATE FUNCTION orbit_release_deleted_executions() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    DELETE FROM execution_outputs o USING deleted_rows d WHERE o.execution_id = d.id;
    UPDATE executions e SET retry_of = NULL FROM deleted_rows d WHERE e.retry_of = d.id;
    DELETE FROM execution_slots s USING deleted_rows d
     WHERE d.trigger IN ('SCHEDULE', 'BACKFILL')
       AND s.job_id = d.job_id AND s.slot = d.scheduled_for AND s.pinned = coalesce(d.pinned_worker, '')
       AND s.execution_id = d.id;
    DELETE FROM execution_chains c USING deleted_rows d
     WHERE d.trigger = 'CHAIN' AND c.job_id = d.job_id AND c.triggered_by = d.triggered_by AND c.execution_id = d.id;
    RETURN NULL;
  END $$`,
  `
  CREATE TRIGGER executions_release_deleted AFTER DELETE ON executions
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION orbit_release_deleted_executions()`,
  `
  CREATE FUNCTION orbit_clear_execution_rows() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    TRUNCATE execution_slots, execution_chains, execution_outputs;
    RETURN NULL;
  END $$`,
  `
  CREATE TRIGGER executions_clear_rows AFTER TRUNCATE ON executions
  FOR EACH STATEMENT EXECUTE FUNCTION orbit_clear_execution_rows()`,
];

const DOWN = [
  `DROP TRIGGER executions_clear_rows ON executions`,
  `DROP FUNCTION orbit_clear_execution_rows`,
  `DROP TRIGGER executions_release_deleted ON executions`,
  `DROP FUNCTION orbit_release_deleted_executions`,
  `DROP TRIGGER execution_outputs_execution_exists ON execution_outputs`,
  `DROP TRIGGER executions_retry_of_exists ON executions`,
  `DROP FUNCTION orbit_check_output_execution`,
  `DROP FUNCTION orbit_check_retry_of`,
  // what a race of a write with a deletion may have left, which a foreign key would have refused
  `DELETE FROM execution_outputs o WHERE NOT EXISTS (SELECT 1 FROM executions e WHERE e.id = o.execution_id)`,
  `
  UPDATE executions r SET retry_of = NULL
   WHERE retry_of IS NOT NULL AND NOT EXISTS (SELECT 1 FROM executions e WHERE e.id = r.retry_of)`,
  `
  ALTER TABLE execution_outputs ADD CONSTRAINT execution_outputs_execution_id_fkey
  FOREIGN KEY (execution_id) REFERENCES executions (id) ON DELETE CASCADE`,
  `
  ALTER TABLE executions ADD CONSTRAINT executions_retry_of_fkey
  FOREIGN KEY (retry_of) REFERENCES executions (id) ON DELETE SET NULL`,
  `DROP TRIGGER executions_take_run_key ON executions`,
  `DROP FUNCTION orbit_take_run_key`,
  `DROP TABLE execution_chains`,
  `DROP TABLE execution_slots`,
  `CREATE UNIQUE INDEX executions_chain_key ON executions (job_id, triggered_by) WHERE trigger = 'CHAIN'`,
  `
  CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
   WHERE trigger IN ('SCHEDULE', 'BACKFILL')`,
];

/**
 * What held runs unique or tied rows to a run through an index or a foreign key of `executions`
 * moves to triggers and two small ledgers, so that nothing needs a unique key on the whole table
 * (a table whose history is split into partitions cannot have one), and a run's versions stop
 * entering two partial unique indexes.
 *
 * Run keys. A slot fires once and an upstream run starts a chained job once: two partial unique
 * indexes said so, and each run of a slot or a chain entered them at every version (queued,
 * started, finished). The keys move to two ledgers, one row per such run, written once with it:
 * - `execution_slots (job_id, slot, pinned)`: a SCHEDULE or BACKFILL run of a job's slot (per
 *   pinned worker, '' for none). Its primary key keeps the old index's name.
 * - `execution_chains (job_id, triggered_by)`: a CHAIN run of a job for an upstream run.
 * A BEFORE INSERT trigger takes the run's key; a key another run holds skips the row (the insert
 * stores nothing and returns nothing for it, which is what the scheduler, backfill and the chain
 * consumer asked of ON CONFLICT DO NOTHING): the database itself never holds a second run of a
 * key. A concurrent insert of the same key waits for the first to commit or roll back, as the
 * unique index made it.
 *
 * References. `retry_of` (a retry's failed run) and `execution_outputs.execution_id` were
 * foreign keys; triggers now do what they did, under the same names and error code: an insert
 * naming a run that does not exist is refused (23503), and holds the run against deletion until
 * it commits (FOR KEY SHARE); deleting a run deletes its output and clears `retry_of` of its
 * retries.
 *
 * Deleting runs (retention, a job's deletion) releases their keys, and emptying executions
 * (TRUNCATE) empties the ledgers and the outputs.
 */
export class ExecutionKeysByTriggers1766404800000 implements MigrationInterface {
  name = 'ExecutionKeysByTriggers1766404800000';

  async up(db: QueryRunner): Promise<void> {
    for (const statement of UP) await db.query(statement);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const statement of DOWN) await db.query(statement);
  }
}
