import { MigrationInterface, QueryRunner } from 'typeorm';
import { EVERY_RUN_JSON_WRITER, FINAL_RUN_JSON_WRITER } from './helpers/execution-response-json.js';

/**
 * `response_json` is stored for finished runs only (see FINAL_RUN_JSON_WRITER): a run's insert
 * and its start no longer build its JSON, which the next move replaced within seconds, and their
 * row versions are that much smaller in the table and the WAL. JSON stored before stays: a run
 * queued or running now stores NULL on its next move, as the writer says. A migration that
 * changes ExecutionResponse from now on calls replaceFinalRunsResponseJson.
 */
export class FinalRunsResponseJson1765670400000 implements MigrationInterface {
  name = 'FinalRunsResponseJson1765670400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE OR REPLACE ${FINAL_RUN_JSON_WRITER}`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE OR REPLACE ${EVERY_RUN_JSON_WRITER}`);
  }
}
