import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `executions` is the queue and the history at once, and a queue's partial indexes
 * (executions_claim_idx, executions_due_idx, executions_running_idx) keep an entry for every
 * version a run has left behind until VACUUM removes it. Those entries sit ahead of the live ones
 * (a claim walks the queue oldest first, and every run claimed before is older), so each claim
 * walks the dead entries of every run since the last vacuum. PostgreSQL's default starts that
 * vacuum when a fifth of the table is dead: with 5,000,000 finished runs kept, after about
 * 500,000 more runs. On a scratch database with 1,000,000 runs kept, a claim of a c8 worker read
 * 33–52 pages after a vacuum and 121 after 20,000 more runs (0.16 → 0.35 ms).
 *
 * So vacuum starts after a number of dead rows that hardly grows with the history (10,000 and a
 * hundredth of the table), and always cleans the indexes: PostgreSQL skips that when the dead rows
 * sit on under 2 % of the table's pages, which is where an early vacuum of a large history finds
 * them. A vacuum reads the whole of each index, which is why the threshold keeps a share of the
 * table: the larger the history, the more runs a vacuum's cost is spread over.
 */
export class QueueVacuum1766016000000 implements MigrationInterface {
  name = 'QueueVacuum1766016000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE executions SET (autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_scale_factor = 0.01,
                                   vacuum_index_cleanup = on)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE executions RESET (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor, vacuum_index_cleanup)`,
    );
  }
}
