import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each worker's host load (the last minute's load average, at each heartbeat) and its CPUs, for GET /workers. */
export class WorkerLoad1766419200000 implements MigrationInterface {
  name = 'WorkerLoad1766419200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workers ADD COLUMN load_average real, ADD COLUMN cpus integer CHECK (cpus > 0)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workers DROP COLUMN load_average, DROP COLUMN cpus`);
  }
}
