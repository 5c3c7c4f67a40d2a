import { MigrationInterface, QueryRunner } from 'typeorm';

/** As the claim's SQL writes it (the planner matches the indexes' predicates by their text). */
const LIMITED = '(max_concurrent IS NOT NULL OR concurrency_group IS NOT NULL)';

/**
 * `executions_due_idx` keeps the queued runs that a limit holds only: a run with no limit, the
 * common case, enters one index of the queue fewer as it is queued. Those runs are in
 * `executions_claim_idx` already, in claim order (priority, then due); what read the due index
 * for them reads the claim index instead: the worker's next wake-up and the overview's oldest due
 * take the first due entry of each priority, skipping from priority to priority (a queue holds
 * few); the overview counts the queued and the late runs with no limit and the limited ones apart.
 * The limited runs' dues stay in this index, since their own index is ordered lane by lane.
 *
 * Only the queue partition's index is made again: it holds the waiting runs alone.
 */
export class DueIndexOfLimitedRuns1766530800000 implements MigrationInterface {
  name = 'DueIndexOfLimitedRuns1766530800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_due_idx`);
    await db.query(
      `CREATE INDEX executions_due_idx ON executions_active (due_at, id) WHERE status = 'QUEUED' AND ${LIMITED}`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX executions_due_idx`);
    await db.query(`CREATE INDEX executions_due_idx ON executions_active (due_at, id) WHERE status = 'QUEUED'`);
  }
}
