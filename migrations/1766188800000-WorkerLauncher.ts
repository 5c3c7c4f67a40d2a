import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which launcher starts a worker's commands: the native one built at install, or the Node
 * spawner. Workers registered before this knew only the Node spawner, hence the default.
 */
export class WorkerLauncher1766188800000 implements MigrationInterface {
  name = 'WorkerLauncher1766188800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE workers ADD COLUMN launcher text NOT NULL DEFAULT 'node' CHECK (launcher IN ('native', 'node'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE workers DROP COLUMN launcher`);
  }
}
