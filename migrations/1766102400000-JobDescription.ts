import { MigrationInterface, QueryRunner } from 'typeorm';

/** A job's description: what it is for, in its owners' words ('' for none). */
export class JobDescription1766102400000 implements MigrationInterface {
  name = 'JobDescription1766102400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN description text NOT NULL DEFAULT ''`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN description`);
  }
}
