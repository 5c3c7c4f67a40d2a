import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trail's reads about one target (a run's cancellation, a job's or a channel's changes, the
 * Audit page filtered by target) walk that target's entries newest first, as the list orders
 * them, instead of the whole trail's newest-first index filtered on the way: a target's entries
 * are few, and a large trail holds them far apart. Entries without a target (an apply) are left
 * out: nothing reads them by target.
 */
export class AuditTargetIndex1766451600000 implements MigrationInterface {
  name = 'AuditTargetIndex1766451600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX audit_events_target_idx ON audit_events (target_id, created_at DESC, id DESC) WHERE target_id IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX audit_events_target_idx`);
  }
}
