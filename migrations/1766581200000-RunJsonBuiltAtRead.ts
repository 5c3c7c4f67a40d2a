import { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns whose change made the history's trigger write a finished run's JSON again. */
const SHOWN =
  'id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, scheduled_for, retry_of, due_at, ' +
  'created_at, started_at, finished_at, exit_code, error_message, worker_id, worker_selector, pinned_worker, ' +
  'max_concurrent, concurrency_group, priority, waiting_for, parameters, triggered_by, max_duration_seconds, cancelled_by';

/**
 * A run's API answer is made as it is read (orbit_execution_json), for every run: `response_json`,
 * which a trigger wrote as a run entered the history, is gone with its triggers.
 *
 * Why: a stored answer is worth its place on the write path only if readers would pay more to make
 * it. Each run is written once and, mostly, never read on its own; the trigger cost every end a
 * PL/pgSQL call and the JSON's making (a twentieth of PostgreSQL's CPU per run in bursts at
 * concurrency 8, a tenth in a worker's cycles alone), and every finished row about 650 bytes of the
 * history and its WAL. A read makes it in about 9 µs per row (a list's page of 50, about 0.7 ms
 * more), as it already did for queued and running runs. A change of ExecutionResponse now replaces the type and the function only.
 */
export class RunJsonBuiltAtRead1766581200000 implements MigrationInterface {
  name = 'RunJsonBuiltAtRead1766581200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER executions_write_response_json_update ON executions_history`);
    await db.query(`DROP TRIGGER executions_write_response_json ON executions`);
    await db.query(`DROP FUNCTION orbit_write_execution_json()`);
    await db.query(`ALTER TABLE executions DROP COLUMN response_json`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE executions ADD COLUMN response_json text`);
    await db.query(`
      CREATE FUNCTION orbit_write_execution_json() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.response_json := CASE WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') THEN orbit_execution_json(NEW) END;
        RETURN NEW;
      END $$`);
    await db.query(
      `CREATE TRIGGER executions_write_response_json BEFORE INSERT ON executions FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`,
    );
    await db.query(`ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_write_response_json`);
    await db.query(`
      CREATE TRIGGER executions_write_response_json_update BEFORE UPDATE OF ${SHOWN}
      ON executions_history FOR EACH ROW EXECUTE FUNCTION orbit_write_execution_json()`);
    await db.query(`ALTER TABLE executions_history ENABLE ALWAYS TRIGGER executions_write_response_json_update`);
  }
}
