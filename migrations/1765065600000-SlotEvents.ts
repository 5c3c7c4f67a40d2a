import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events that are not a row's change: a slot's fate when it did not fire as planned (skipped by
 * FORBID, missed while no scheduler ran, late) and notices about a run (still running past its
 * limit). Their writers append them in the transaction that decided; `slot` is the schedule slot
 * they are about, `detail` what the type adds. Slot events have no execution_id, so they age
 * out with the job events (events_job_changes_idx); the timeline finds a job's by slot.
 */
export class SlotEvents1765065600000 implements MigrationInterface {
  name = 'SlotEvents1765065600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE events ADD COLUMN slot timestamptz, ADD COLUMN detail jsonb`);
    await db.query(`CREATE INDEX events_job_slot_idx ON events (job_id, slot) WHERE slot IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX events_job_slot_idx`);
    await db.query(`ALTER TABLE events DROP COLUMN detail, DROP COLUMN slot`);
  }
}
