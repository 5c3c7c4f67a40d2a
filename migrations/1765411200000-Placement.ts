import { MigrationInterface, QueryRunner } from 'typeorm';
import { replaceExecutionResponseJson, ResponseField } from './helpers/execution-response-json.js';

/** ExecutionResponse before this migration, in its order. */
const PREVIOUS: ResponseField[] = [
  ['id', 'id', 'uuid'],
  ['jobId', 'job_id', 'uuid'],
  ['command', 'command', 'text'],
  ['maxRetries', 'max_retries', 'integer'],
  ['timeoutSeconds', 'timeout_seconds', 'integer'],
  ['status', 'status', 'text'],
  ['attempt', 'attempt', 'integer'],
  ['trigger', 'trigger', 'text'],
  ['scheduledFor', 'scheduled_for', 'timestamptz'],
  ['retryOf', 'retry_of', 'uuid'],
  ['dueAt', 'due_at', 'timestamptz'],
  ['createdAt', 'created_at', 'timestamptz'],
  ['startedAt', 'started_at', 'timestamptz'],
  ['finishedAt', 'finished_at', 'timestamptz'],
  ['exitCode', 'exit_code', 'integer'],
  ['errorMessage', 'error_message', 'text'],
  ['workerId', 'worker_id', 'text'],
];

/** ExecutionResponse's fields: the earlier ones, then these. */
export const FIELDS: ResponseField[] = [
  ...PREVIOUS,
  ['workerSelector', 'worker_selector', 'jsonb'],
  ['pinnedWorker', 'pinned_worker', 'text'],
  ['maxConcurrent', 'max_concurrent', 'integer'],
  ['concurrencyGroup', 'concurrency_group', 'text'],
  ['priority', 'priority', 'smallint'],
  ['waitingFor', 'waiting_for', 'text'],
];

/**
 * Whether a run counts against a limit, and which: its group's, or its job's own. The claim's
 * SQL (sql-execution.repository.ts) imports these, so its conditions are the indexes' own text
 * and the planner matches them.
 */
export const LIMITED = '(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)';
export const LANE = `(CASE WHEN concurrency_group IS NOT NULL THEN 'group:' || concurrency_group ELSE 'job:' || job_id::text END)`;

/**
 * Placement and limits: workers' labels and drain, jobs' selector, runOn, limits and priority
 * (copied into their executions, as the command is), concurrency groups, and the claim's
 * indexes. Unlimited runs are claimed from an index of their own, limited ones from one keyed
 * by their lane, so runs held by a full limit never stand in the way of the others.
 */
export class Placement1765411200000 implements MigrationInterface {
  name = 'Placement1765411200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE workers ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'`);
    await db.query(`ALTER TABLE workers ADD COLUMN draining boolean NOT NULL DEFAULT false`);
    // a drain's entry names its worker, whose id is no uuid
    await db.query(`ALTER TABLE audit_events ALTER COLUMN target_id TYPE text`);

    await db.query(`
      CREATE TABLE concurrency_groups (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        "limit" integer NOT NULL CHECK ("limit" >= 1),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL
      )`);

    await db.query(`
      ALTER TABLE jobs
        ADD COLUMN worker_selector jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN run_on text NOT NULL DEFAULT 'one' CHECK (run_on IN ('one', 'all')),
        ADD COLUMN max_concurrent integer CHECK (max_concurrent >= 1),
        ADD COLUMN concurrency_group text,
        ADD COLUMN priority smallint NOT NULL DEFAULT 0 CHECK (priority BETWEEN -100 AND 100)`);
    // a group's removal or rename looks for the live jobs naming it
    await db.query(
      `CREATE INDEX jobs_concurrency_group_idx ON jobs (concurrency_group) WHERE concurrency_group IS NOT NULL AND deleted_at IS NULL`,
    );

    await db.query(`
      ALTER TABLE executions
        ADD COLUMN worker_selector jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN max_concurrent integer,
        ADD COLUMN concurrency_group text,
        ADD COLUMN priority smallint NOT NULL DEFAULT 0,
        ADD COLUMN pinned_worker text,
        ADD COLUMN waiting_for text`);

    // the claim of unlimited runs: highest priority, then the oldest due
    await db.query(`CREATE INDEX executions_claim_idx ON executions (priority DESC, due_at, id)
      WHERE status = 'QUEUED' AND NOT ${LIMITED}`);
    // limited runs by lane: the lanes with queued runs are found by skipping through it, and each
    // lane's next runs are read in claim order
    await db.query(`CREATE INDEX executions_claim_lane_idx ON executions (${LANE}, priority DESC, due_at, id)
      WHERE status = 'QUEUED' AND ${LIMITED}`);
    // what a lane runs now, counted under its lock
    await db.query(
      `CREATE INDEX executions_running_lane_idx ON executions (${LANE}) WHERE status = 'RUNNING' AND ${LIMITED}`,
    );

    // A lane's free places, counted under its transaction-level lock. VOLATILE: its count takes a
    // snapshot of its own after the lock is granted, so it sees the runs that the previous holder
    // committed; the claim's own statement snapshot predates the wait.
    await db.query(`
      CREATE FUNCTION orbit_lane_room(p_lane text, p_limit integer) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_lane, 0));
        RETURN p_limit - (SELECT count(*) FROM executions WHERE status = 'RUNNING' AND ${LIMITED} AND ${LANE} = p_lane);
      END $$`);

    // a fire of a runOn: all job is one run per worker: the slot is unique per pinned worker
    await db.query(`DROP INDEX executions_job_slot_key`);
    await db.query(`CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for, (coalesce(pinned_worker, '')))
      WHERE trigger = 'SCHEDULE'`);

    await replaceExecutionResponseJson(db, FIELDS);
  }

  async down(db: QueryRunner): Promise<void> {
    await replaceExecutionResponseJson(db, PREVIOUS);
    await db.query(`DROP INDEX executions_job_slot_key`);
    await db.query(
      `CREATE UNIQUE INDEX executions_job_slot_key ON executions (job_id, scheduled_for) WHERE trigger = 'SCHEDULE'`,
    );
    await db.query(`DROP FUNCTION orbit_lane_room`);
    await db.query(`DROP INDEX executions_running_lane_idx`);
    await db.query(`DROP INDEX executions_claim_lane_idx`);
    await db.query(`DROP INDEX executions_claim_idx`);
    await db.query(`ALTER TABLE executions
      DROP COLUMN worker_selector, DROP COLUMN max_concurrent, DROP COLUMN concurrency_group,
      DROP COLUMN priority, DROP COLUMN pinned_worker, DROP COLUMN waiting_for`);
    await db.query(`DROP INDEX jobs_concurrency_group_idx`);
    await db.query(`ALTER TABLE jobs
      DROP COLUMN worker_selector, DROP COLUMN run_on, DROP COLUMN max_concurrent,
      DROP COLUMN concurrency_group, DROP COLUMN priority`);
    await db.query(`DROP TABLE concurrency_groups`);
    await db.query(`DELETE FROM audit_events WHERE action IN ('worker.drained', 'worker.resumed')`);
    await db.query(`ALTER TABLE audit_events ALTER COLUMN target_id TYPE uuid USING target_id::uuid`);
    await db.query(`ALTER TABLE workers DROP COLUMN labels, DROP COLUMN draining`);
  }
}
