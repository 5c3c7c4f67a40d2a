import { Injectable } from '@nestjs/common';
import { StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionRepository, InsertOptions, LeaseRenewal } from '../application/execution.repository.js';
import { Execution, ExecutionProps } from '../domain/execution.js';
import { TRANSITIONS } from '../domain/execution-status.js';
import { EXECUTION_COLUMNS } from './execution.columns.js';

@Injectable()
export class SqlExecutionRepository extends ExecutionRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(execution: Execution): Promise<void> {
    await this.insertAll([execution]);
  }

  async insertAll(executions: Execution[], options: InsertOptions = {}): Promise<number> {
    if (executions.length === 0) return 0;
    const values = EXECUTION_COLUMNS.values(executions.map((e) => e.toProps()));
    if (options.skipTakenSlots) return (await this.db.rows(INSERT_SKIPPING_TAKEN_SLOTS, values)).length;
    if (options.skipTakenChains) return (await this.db.rows(INSERT_SKIPPING_TAKEN_CHAINS, values)).length;
    await this.db.rows(INSERT, values);
    return executions.length;
  }

  async save(execution: Execution): Promise<void> {
    const [stale] = await this.saveAll([execution]);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed by someone else; read it again`);
  }

  async saveAll(executions: Execution[], leaseExpiresAt: Date | null = null): Promise<Execution[]> {
    if (executions.length === 0) return [];
    const props = executions.map((e) => e.toProps());
    const written = await this.db.rows<{ id: string }>(SAVE, [
      ...EXECUTION_COLUMNS.values(props, SAVED),
      leaseExpiresAt,
    ]);
    const landed = new Set(written.map((row) => row.id));
    const stale: Execution[] = [];
    for (const execution of executions) {
      if (landed.has(execution.id)) execution.persisted();
      else stale.push(execution);
    }
    return stale;
  }

  async findById(id: string): Promise<Execution | null> {
    const rows = await this.db.rows<ExecutionProps>(`SELECT ${SELECTED} FROM executions WHERE id = $1`, [id]);
    return rows[0] ? Execution.restore(rows[0]) : null;
  }

  async findActiveByJob(jobId: string): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(this.db.inTransaction() ? ACTIVE_LOCKED : ACTIVE, [
      jobId,
      TRANSITIONS.cancel.from,
    ]);
    return rows.map((row) => Execution.restore(row));
  }

  async lockDue(now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(
      `SELECT ${SELECTED} FROM executions WHERE status = 'QUEUED' AND due_at <= $1
       ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map((row) => Execution.restore(row));
  }

  async saveClaimed(executions: Execution[], leaseExpiresAt: Date): Promise<void> {
    const [stale] = await this.saveAll(executions, leaseExpiresAt);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed while being claimed`);
  }

  async renewLeases(workerId: string, ids: string[], leaseExpiresAt: Date): Promise<LeaseRenewal> {
    if (ids.length === 0) return { renewed: [], held: [] };
    // rows a writer holds are skipped, not waited for: the worker's own cycle holds some while it
    // records their outcomes, and a heartbeat that waited for them deadlocked with it. The final
    // SELECT sees the rows as committed when the statement began, the skipped ones included.
    const rows = await this.db.rows<{ id: string; renewed: boolean }>(
      `WITH renewed AS (
         UPDATE executions SET lease_expires_at = $1
          WHERE id IN (SELECT id FROM executions WHERE id = ANY($2::uuid[]) AND worker_id = $3 AND status = 'RUNNING'
                       FOR NO KEY UPDATE SKIP LOCKED)
         RETURNING id)
       SELECT e.id, r.id IS NOT NULL AS renewed FROM executions e LEFT JOIN renewed r ON r.id = e.id
        WHERE e.id = ANY($2::uuid[]) AND e.worker_id = $3 AND e.status = 'RUNNING'`,
      [leaseExpiresAt, ids, workerId],
    );
    return {
      renewed: rows.filter((row) => row.renewed).map((row) => row.id),
      held: rows.filter((row) => !row.renewed).map((row) => row.id),
    };
  }

  lockExpiredLeases(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning(EXPIRED_LEASES, now, limit);
  }

  lockTimedOutOutsideRuns(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning(TIMED_OUT_OUTSIDE_RUNS, now, limit);
  }

  async earliestDue(): Promise<Date | null> {
    const [row] = await this.db.rows<{ due: Date | null }>(
      `SELECT min(due_at) AS due FROM executions WHERE status = 'QUEUED'`,
    );
    return row?.due ?? null;
  }

  private async lockRunning(sql: string, now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(sql, [now, limit]);
    return rows.map((row) => Execution.restore(row));
  }
}

/** The columns of an execution row under the names of its props, for raw SQL read by Execution.restore. */
const SELECTED = EXECUTION_COLUMNS.select();

const INSERT = `INSERT INTO executions (${EXECUTION_COLUMNS.names()}) SELECT * FROM unnest(${EXECUTION_COLUMNS.arrays()})`;
// the arbiter is executions_job_slot_key alone: any other violation still fails the insert
const INSERT_SKIPPING_TAKEN_SLOTS = `${INSERT}
  ON CONFLICT (job_id, scheduled_for) WHERE trigger IN ('SCHEDULE', 'BACKFILL') DO NOTHING
  RETURNING id`;
// the arbiter is executions_chain_key alone
const INSERT_SKIPPING_TAKEN_CHAINS = `${INSERT}
  ON CONFLICT (job_id, triggered_by) WHERE trigger = 'CHAIN' DO NOTHING
  RETURNING id`;

/** What saveAll sends per execution: the row's key, the version it was read with, and what a change writes. */
const SAVED = ['id', 'version', ...EXECUTION_COLUMNS.changing()] as const;
const LEASE_PARAM = `$${SAVED.length + 1}`;
// a lease belongs to a running execution only: a worker sets its own when it claims, an outside runner has none
const SAVE = `UPDATE executions e
  SET ${EXECUTION_COLUMNS.changing()
    .map((field) => `${EXECUTION_COLUMNS.column(field)} = v.${EXECUTION_COLUMNS.column(field)}`)
    .join(', ')}, version = e.version + 1,
      lease_expires_at = CASE WHEN v.status = 'RUNNING' THEN coalesce(${LEASE_PARAM}, e.lease_expires_at) END
  FROM unnest(${EXECUTION_COLUMNS.arrays(SAVED)}) AS v(${EXECUTION_COLUMNS.names(SAVED)})
  WHERE e.id = v.id AND e.version = v.version
  RETURNING e.id`;

const ACTIVE = `SELECT ${SELECTED} FROM executions WHERE job_id = $1 AND status = ANY($2::text[])`;
const ACTIVE_LOCKED = `${ACTIVE} FOR UPDATE`;

/** RUNNING executions matching `condition` (on $1, the instant), at most $2, locked, skipping rows others hold. */
const lockingRunning = (condition: string) =>
  `SELECT ${SELECTED} FROM executions WHERE status = 'RUNNING' AND ${condition} LIMIT $2 FOR UPDATE SKIP LOCKED`;
const EXPIRED_LEASES = lockingRunning('worker_id IS NOT NULL AND lease_expires_at < $1');
const TIMED_OUT_OUTSIDE_RUNS = lockingRunning(
  "worker_id IS NULL AND started_at + timeout_seconds * interval '1 second' <= $1",
);
