import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention's health across the cluster, in one row that every node's pass locks and updates in
 * the transaction that writes the alert its change gives: several nodes sweeping tell a failure
 * streak once. `one` is always true, so that a second row cannot exist.
 */
export class RetentionHealth1766361600000 implements MigrationInterface {
  name = 'RetentionHealth1766361600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE retention_health (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        failing_since timestamptz,
        last_error text,
        last_success_at timestamptz,
        overdue_since timestamptz,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`INSERT INTO retention_health (updated_at) VALUES (now())`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE retention_health`);
  }
}
