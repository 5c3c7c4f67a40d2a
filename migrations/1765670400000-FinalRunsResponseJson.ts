import { MigrationInterface, QueryRunner } from 'typeorm';

/** What up() runs, in order: literal SQL, as it ran on every installation. */
const UP = [
  `CREATE OR REPLACE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := CASE WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') THEN orbit_execution_json(NEW) END;
      RETURN NEW;
    END $$`,
];

/** What down() runs, in order. */
const DOWN = [
  `CREATE OR REPLACE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.response_json := orbit_execution_json(NEW);
      RETURN NEW;
    END $$`,
];

/**
 * `response_json` is stored for finished runs only (see FINAL_RUN_JSON_WRITER): a run's insert
 * and its start no longer build its JSON, which the next move replaced within seconds, and their
 * row versions are that much smaller in the table and the WAL. JSON stored before stays: a run
 * queued or running now stores NULL on its next move, as the writer says. A migration that
 * changes ExecutionResponse from now on calls replaceFinalRunsResponseJson.
 */
export class FinalRunsResponseJson1765670400000 implements MigrationInterface {
  name = 'FinalRunsResponseJson1765670400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of UP) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of DOWN) await queryRunner.query(statement);
  }
}
