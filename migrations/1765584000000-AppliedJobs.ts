import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The jobs an `orbit apply` created or took over: what its `--prune` may delete, and nothing
 * else. A table of the apply module's own beside the jobs, rather than a column of theirs: a
 * job is the same job whichever client wrote it.
 */
export class AppliedJobs1765584000000 implements MigrationInterface {
  name = 'AppliedJobs1765584000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE applied_jobs (job_id uuid PRIMARY KEY REFERENCES jobs (id))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE applied_jobs`);
  }
}
