import { MigrationInterface, QueryRunner } from 'typeorm';

/** A job's runs, newest first: the order of its list of runs. */
const BY_JOB = '(job_id, created_at DESC, id DESC)';

/**
 * The queue partition's index by job is split in two partial indexes, one per status: the queued
 * runs' (`executions_queued_job_newest_idx`) and the running runs' (`executions_running_idx`,
 * which was keyed by the lease's end). A run's start writes a new version of its row (the status
 * it changes is in the queue's partial indexes); that version entered the primary key, the index
 * by job and the leases' index, and now enters the primary key and the running runs' index only:
 * a run enters one index entry fewer. A lease's renewal changes no indexed column any more, so it
 * may be a HOT update.
 *
 * A read of a job's runs names each status's part, so that each walks its own index. What read
 * the leases' index (the expired leases, a worker's runs, the running runs' start events) reads
 * the running runs' index whole: they are as many as the workers' slots. Both indexes are built
 * anew (a read of the queue partition).
 */
export class QueuedRunsByJob1766559600000 implements MigrationInterface {
  name = 'QueuedRunsByJob1766559600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_active_job_newest_idx, executions_running_idx`);
    await db.query(
      `CREATE INDEX executions_queued_job_newest_idx ON executions_active ${BY_JOB} WHERE status = 'QUEUED'`,
    );
    await db.query(`CREATE INDEX executions_running_idx ON executions_active ${BY_JOB} WHERE status = 'RUNNING'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_queued_job_newest_idx, executions_running_idx`);
    await db.query(`CREATE INDEX executions_active_job_newest_idx ON executions_active ${BY_JOB}`);
    await db.query(
      `CREATE INDEX executions_running_idx ON executions_active (lease_expires_at) WHERE status = 'RUNNING'`,
    );
  }
}
