import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `jobs_triggered_idx` lists the live jobs with a trigger, by id: whether any job has one is the
 * chains consumer's check at each pass (without any, it reads no event), and a look at this index
 * answers it however many jobs there are. `jobs_triggered_after_idx` (GIN, by the names the
 * triggers follow) cannot: it is read by containment only. The predicate is the consumer's
 * condition, as its SQL writes it.
 */
export class TriggeredJobsIndex1766566800000 implements MigrationInterface {
  name = 'TriggeredJobsIndex1766566800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX jobs_triggered_idx ON jobs (id) WHERE deleted_at IS NULL AND triggers <> '[]'::jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX jobs_triggered_idx`);
  }
}
