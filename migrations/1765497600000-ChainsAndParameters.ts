import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceExecutionResponseJson, ResponseField } from './helpers/execution-response-json.js';
import { FIELDS as PREVIOUS_FIELDS } from './1765411200000-Placement.js';

/** ExecutionResponse's fields: the Placement migration's, then these. */
export const FIELDS: ResponseField[] = [
  ...PREVIOUS_FIELDS,
  ['parameters', 'parameters', 'jsonb'],
  ['triggeredBy', 'triggered_by', 'uuid'],
];

/**
 * Chains, parameters, runs at a given time, backfill, schedule windows and jitter.
 *
 * A job may have no schedule (cron_expression NULL), triggers (`[{ after, on }]`, by job name),
 * declared parameters, a window (starts_at, ends_at) and a jitter. An execution keeps the
 * parameter values it runs with, and a chained one the upstream execution and its outcome.
 * Two unique keys make the automatic fires exactly-once whatever the timing: one run per
 * (job, slot) for scheduled and backfilled runs alike (a backfill skips a slot the schedule
 * already ran), and one chained run per (job, upstream execution).
 */
export class ChainsAndParameters1765497600000 implements MigrationInterface {
  name = 'ChainsAndParameters1765497600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE jobs ALTER COLUMN cron_expression DROP NOT NULL`);
    await db.query(`ALTER TABLE jobs ADD COLUMN triggers jsonb NOT NULL DEFAULT '[]'`);
    await db.query(`ALTER TABLE jobs ADD COLUMN parameters jsonb NOT NULL DEFAULT '[]'`);
    await db.query(`ALTER TABLE jobs ADD COLUMN starts_at timestamptz`);
    await db.query(`ALTER TABLE jobs ADD COLUMN ends_at timestamptz`);
    await db.query(
      `ALTER TABLE jobs ADD COLUMN jitter_seconds integer NOT NULL DEFAULT 0 CHECK (jitter_seconds BETWEEN 0 AND 3600)`,
    );
    await db.query(`ALTER TABLE jobs ADD CONSTRAINT jobs_window_check CHECK (ends_at >= starts_at)`);

    await db.query(`ALTER TABLE executions ADD COLUMN parameters jsonb NOT NULL DEFAULT '{}'`);
    await db.query(`ALTER TABLE executions ADD COLUMN triggered_by uuid`);
    await db.query(`ALTER TABLE executions ADD COLUMN upstream_status text`);
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_trigger_check`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_trigger_check
         CHECK (trigger IN ('MANUAL', 'SCHEDULE', 'RETRY', 'CHAIN', 'BACKFILL'))`,
    );
    // a retry stands for the slot and follows the upstream run of the attempt it retries
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_schedule_slot_check`);
    await db.query(`
      ALTER TABLE executions ADD CONSTRAINT executions_schedule_slot_check CHECK (
        CASE trigger WHEN 'SCHEDULE' THEN scheduled_for IS NOT NULL WHEN 'BACKFILL' THEN scheduled_for IS NOT NULL
                     WHEN 'RETRY' THEN true ELSE scheduled_for IS NULL END)`);
    await db.query(`
      ALTER TABLE executions ADD CONSTRAINT executions_triggered_by_check CHECK (
        CASE trigger WHEN 'CHAIN' THEN triggered_by IS NOT NULL AND upstream_status IS NOT NULL
                     WHEN 'RETRY' THEN (triggered_by IS NULL) = (upstream_status IS NULL)
                     ELSE triggered_by IS NULL AND upstream_status IS NULL END)`);
    await db.query(`DROP INDEX executions_job_slot_key`);
    await db.query(
      `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
         WHERE trigger IN ('SCHEDULE', 'BACKFILL')`,
    );
    await db.query(
      `CREATE UNIQUE INDEX executions_chain_key ON executions (job_id, triggered_by) WHERE trigger = 'CHAIN'`,
    );
    await replaceExecutionResponseJson(db, FIELDS);
  }

  async down(db: QueryRunner): Promise<void> {
    await replaceExecutionResponseJson(db, PREVIOUS_FIELDS);
    await db.query(`DROP INDEX executions_chain_key`);
    await db.query(`DROP INDEX executions_job_slot_key`);
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_triggered_by_check`);
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_schedule_slot_check`);
    // the older schema knows these runs only as manual ones, and slots of scheduled runs only
    await db.query(
      `UPDATE executions SET trigger = 'MANUAL', scheduled_for = NULL WHERE trigger IN ('CHAIN', 'BACKFILL')`,
    );
    await db.query(`UPDATE executions SET scheduled_for = NULL WHERE trigger = 'RETRY'`);
    await db.query(
      `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
         WHERE trigger = 'SCHEDULE'`,
    );
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_schedule_slot_check CHECK ((trigger = 'SCHEDULE') = (scheduled_for IS NOT NULL))`,
    );
    await db.query(`ALTER TABLE executions DROP CONSTRAINT executions_trigger_check`);
    await db.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_trigger_check CHECK (trigger IN ('MANUAL', 'SCHEDULE', 'RETRY'))`,
    );
    await db.query(`ALTER TABLE executions DROP COLUMN upstream_status`);
    await db.query(`ALTER TABLE executions DROP COLUMN triggered_by`);
    await db.query(`ALTER TABLE executions DROP COLUMN parameters`);
    await db.query(`ALTER TABLE jobs DROP CONSTRAINT jobs_window_check`);
    await db.query(`ALTER TABLE jobs DROP COLUMN jitter_seconds`);
    await db.query(`ALTER TABLE jobs DROP COLUMN ends_at`);
    await db.query(`ALTER TABLE jobs DROP COLUMN starts_at`);
    await db.query(`ALTER TABLE jobs DROP COLUMN parameters`);
    await db.query(`ALTER TABLE jobs DROP COLUMN triggers`);
    // fails while a job has no schedule: the older schema cannot hold one, and inventing a schedule would run it
    await db.query(`ALTER TABLE jobs ALTER COLUMN cron_expression SET NOT NULL`);
  }
}
