import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A worker's finished runs by their end, for a worker's lane (GET /workers/:id/runs): the runs that
 * ended after a window's start are the recent ones, whatever the size of the history. On the
 * partitioned parent, so that every partition has it, and any made later.
 */
export class WorkerRunsIndex1766469600000 implements MigrationInterface {
  name = 'WorkerRunsIndex1766469600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX executions_worker_finished_idx ON executions (worker_id, finished_at)
        WHERE worker_id IS NOT NULL AND finished_at IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_worker_finished_idx`);
  }
}
