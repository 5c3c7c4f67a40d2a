import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rules a row of `executions` must hold (its shape by status, its trigger's slot and
 * upstream, the ranges of its numbers) move from twelve CHECK constraints into one PL/pgSQL row
 * trigger, `executions_valid_row`, and the transition guard reads the lifecycle's edges from its
 * own body instead of looking each one up in `execution_transitions`.
 *
 * Why: PostgreSQL prepares a table's CHECK constraints anew for every statement that writes it
 * (it reads each one's stored expression and plans it), and a run's end writes two relations (the
 * queue and the day of the history it moves to). In a worker's cycle (save the ended runs, claim,
 * save the started ones, commit) that was about a fifth of what a cycle costs whatever it moves.
 * PL/pgSQL keeps its expressions prepared for the session, so a row trigger pays per row only.
 *
 * What a writer sees does not change: a row that breaks a rule is refused with SQLSTATE 23514,
 * the constraint's name and PostgreSQL's own message for it, on insert and update, into every
 * partition (the trigger is cloned onto the days made later), under
 * `session_replication_role = replica` too (the trigger is ENABLE ALWAYS). The rules are checked
 * in the constraints' order (by name), after the transition guard, so an illegal move is still
 * refused as one.
 *
 * The edges are those of `execution_transitions` when the migration runs (the table stays, as the
 * domain's list in the database); a test holds every pair of statuses to the domain's rule.
 */

/** The rules, by their constraints' names, as the CHECK constraints held them; `$` stands for the row. */
const RULES: [string, string][] = [
  ['executions_attempt_check', `$attempt >= 1`],
  ['executions_failure_cause_check', `$failure_cause = ANY (ARRAY['timeout', 'worker_lost'])`],
  ['executions_lease_check', `$lease_expires_at IS NULL OR $status = 'RUNNING'`],
  ['executions_max_duration_seconds_check', `$max_duration_seconds > 0`],
  ['executions_max_retries_check', `$max_retries >= 0 AND $max_retries <= 100`],
  ['executions_retry_of_check', `$retry_of IS NULL OR $trigger = 'RETRY'`],
  [
    'executions_schedule_slot_check',
    `CASE $trigger
       WHEN 'SCHEDULE' THEN $scheduled_for IS NOT NULL
       WHEN 'BACKFILL' THEN $scheduled_for IS NOT NULL
       WHEN 'RETRY' THEN true
       ELSE $scheduled_for IS NULL
     END`,
  ],
  [
    'executions_shape_check',
    `CASE $status
       WHEN 'QUEUED' THEN $started_at IS NULL AND $finished_at IS NULL AND $exit_code IS NULL AND $error_message IS NULL AND $worker_id IS NULL
       WHEN 'RUNNING' THEN $started_at IS NOT NULL AND $finished_at IS NULL AND $exit_code IS NULL AND $error_message IS NULL
       WHEN 'SUCCEEDED' THEN $started_at IS NOT NULL AND $finished_at IS NOT NULL AND $exit_code IS NOT NULL AND $error_message IS NULL
       WHEN 'FAILED' THEN $started_at IS NOT NULL AND $finished_at IS NOT NULL AND $exit_code IS NOT NULL AND $error_message IS NOT NULL
       WHEN 'CANCELLED' THEN $finished_at IS NOT NULL AND $exit_code IS NULL AND $error_message IS NULL
     END`,
  ],
  ['executions_status_check', `$status = ANY (ARRAY['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'])`],
  ['executions_timeout_seconds_check', `$timeout_seconds >= 1`],
  ['executions_trigger_check', `$trigger = ANY (ARRAY['MANUAL', 'SCHEDULE', 'RETRY', 'CHAIN', 'BACKFILL'])`],
  [
    'executions_triggered_by_check',
    `CASE $trigger
       WHEN 'CHAIN' THEN $triggered_by IS NOT NULL AND $upstream_status IS NOT NULL
       WHEN 'RETRY' THEN ($triggered_by IS NULL) = ($upstream_status IS NULL)
       ELSE $triggered_by IS NULL AND $upstream_status IS NULL
     END`,
  ],
];

const of = (rule: string, row: string) => rule.replace(/\$(?=[a-z])/g, row);

/** A CHECK passes unless its expression is false (null passes), as here. */
const VALID_ROW = `
  CREATE FUNCTION orbit_check_execution_row() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
${RULES.map(
  ([name, rule]) => `    IF NOT coalesce((${of(rule, 'NEW.')}), true) THEN
      RAISE EXCEPTION 'new row for relation "%" violates check constraint "%"', TG_TABLE_NAME, '${name}'
        USING ERRCODE = 'check_violation', CONSTRAINT = '${name}', TABLE = TG_TABLE_NAME, SCHEMA = TG_TABLE_SCHEMA;
    END IF;`,
).join('\n')}
    RETURN NEW;
  END $$`;

/** The guard as the DerivedExecutionEvents migration left it, the edges looked up; `edges` instead lists them. */
function guard(edges: string | null): string {
  const illegal = edges
    ? `(OLD.status, NEW.status) NOT IN (${edges})`
    : `NOT EXISTS (SELECT 1 FROM execution_transitions WHERE from_status = OLD.status AND to_status = NEW.status)`;
  return `
  CREATE OR REPLACE FUNCTION orbit_guard_execution_transition() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status AND ${illegal} THEN
      RAISE EXCEPTION 'Illegal execution transition from % to %', OLD.status, NEW.status
        USING ERRCODE = 'check_violation', CONSTRAINT = 'executions_transition_check';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
      IF NEW.status = 'RUNNING' THEN
        NEW.started_seq := nextval('orbit_event_seq');
      ELSE
        NEW.finished_seq := nextval('orbit_event_seq');
      END IF;
      PERFORM pg_notify('orbit_events', '');
    END IF;
    RETURN NEW;
  END $$`;
}

export class RowChecksByTrigger1766523600000 implements MigrationInterface {
  name = 'RowChecksByTrigger1766523600000';

  async up(db: QueryRunner): Promise<void> {
    const [{ edges }] = (await db.query(
      `SELECT string_agg(format('(%L, %L)', from_status, to_status), ', ' ORDER BY from_status, to_status) AS edges
         FROM execution_transitions`,
    )) as [{ edges: string }];
    await db.query(guard(edges));
    await db.query(VALID_ROW);
    for (const [name] of RULES) await db.query(`ALTER TABLE executions DROP CONSTRAINT ${name}`);
    await db.query(`CREATE TRIGGER executions_valid_row BEFORE INSERT OR UPDATE ON executions
      FOR EACH ROW EXECUTE FUNCTION orbit_check_execution_row()`);
    await db.query(`ALTER TABLE executions ENABLE ALWAYS TRIGGER executions_valid_row`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER executions_valid_row ON executions`);
    await db.query(`DROP FUNCTION orbit_check_execution_row()`);
    for (const [name, rule] of RULES) {
      await db.query(`ALTER TABLE executions ADD CONSTRAINT ${name} CHECK (${of(rule, '')})`);
    }
    await db.query(guard(null));
  }
}
