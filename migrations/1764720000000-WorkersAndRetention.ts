import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The registry of worker processes, and what retention needs: a retry may outlive the failed
 * execution it retried (its `retry_of` then points nowhere and becomes NULL), and old finished
 * executions are found by their finish time.
 */
export class WorkersAndRetention1764720000000 implements MigrationInterface {
  name = 'WorkersAndRetention1764720000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE workers (
        id text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        version text NOT NULL,
        concurrency integer NOT NULL,
        started_at timestamptz NOT NULL,
        last_heartbeat_at timestamptz NOT NULL,
        running integer NOT NULL DEFAULT 0,
        stopped_at timestamptz
      )`);
    await db.query(`CREATE INDEX workers_heartbeat_idx ON workers (last_heartbeat_at DESC)`);

    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_retry_of_check`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_retry_of_check CHECK (retry_of IS NULL OR trigger = 'RETRY')`,
    );
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_retry_of_fkey`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_retry_of_fkey
       FOREIGN KEY (retry_of) REFERENCES executions (id) ON DELETE SET NULL`,
    );
    await db.query(
      `CREATE INDEX executions_finished_idx ON executions (job_id, finished_at DESC) WHERE finished_at IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_finished_idx`);
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_retry_of_fkey`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_retry_of_fkey FOREIGN KEY (retry_of) REFERENCES executions (id)`,
    );
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_retry_of_check`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_retry_of_check CHECK ((trigger = 'RETRY') = (retry_of IS NOT NULL))`,
    );
    await db.query(`DROP TABLE workers`);
  }
}
