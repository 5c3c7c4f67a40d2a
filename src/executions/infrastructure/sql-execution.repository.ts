import { Injectable } from '@nestjs/common';
import { earliestDue, LANE, LIMITED } from './claim-lanes.js';
import { runsOfJob } from './runs-of-job.js';
import { StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
import {
  ClaimingWorker,
  ExecutionRepository,
  ExecutionWithOutputTail,
  LeaseRenewal,
  LiveWorker,
  SlotDeadline,
  slotKey,
} from '../application/execution.repository.js';
import { Execution, ExecutionProps } from '../domain/execution.js';
import { ExecutionStatus, TRANSITIONS } from '../domain/execution-status.js';
import { EXECUTION_COLUMNS } from './execution.columns.js';

@Injectable()
export class SqlExecutionRepository extends ExecutionRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(execution: Execution): Promise<void> {
    await this.insertAll([execution]);
  }

  async insertAll(executions: Execution[]): Promise<number> {
    if (executions.length === 0) return 0;
    const values = EXECUTION_COLUMNS.values(executions.map((e) => e.toProps()));
    return (await this.db.rows(INSERT, values)).length;
  }

  async save(execution: Execution): Promise<void> {
    const [stale] = await this.saveAll([execution]);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed by someone else; read it again`);
  }

  async saveAll(executions: Execution[], leaseExpiresAt: Date | null = null): Promise<Execution[]> {
    if (executions.length === 0) return [];
    // a run is saved CANCELLED once, by its cancel: nothing changes a run that ended
    const cancels = executions.filter((e) => e.status === ExecutionStatus.CANCELLED);
    const others = executions.filter((e) => e.status !== ExecutionStatus.CANCELLED);
    const written: { id: string }[] = [];
    if (others.length > 0) {
      const props = others.map((e) => e.toProps());
      written.push(
        ...(await this.db.rows<{ id: string }>(SAVE, [...EXECUTION_COLUMNS.values(props, SAVED), leaseExpiresAt])),
      );
    }
    for (const execution of cancels) {
      written.push(
        ...(await this.db.rows<{ id: string }>(CANCEL, EXECUTION_COLUMNS.params(execution.toProps(), CANCEL_SAVED))),
      );
    }
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
    const rows = await this.db.rows<ExecutionProps>(this.db.inTransaction() ? ACTIVE_LOCKED : ACTIVE, [jobId]);
    return rows.map((row) => Execution.restore(row));
  }

  async lockDue(now: Date, limit: number, worker: ClaimingWorker): Promise<Execution[]> {
    const params = [now, limit, worker.labels, worker.id];
    const free = await this.db.rows<ExecutionProps & { limitedQueued: boolean }>(CLAIM_FREE, params);
    // one row with no execution when nothing is free, or when limited runs wait: then the whole claim decides
    if (free[0]?.limitedQueued)
      return (await this.db.rows<ExecutionProps>(CLAIM, params)).map((row) => Execution.restore(row));
    return free.filter((row) => row.id !== null).map(({ limitedQueued: _, ...row }) => Execution.restore(row));
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

  async earliestDue(after: Date, worker: ClaimingWorker): Promise<Date | null> {
    const [row] = await this.db.rows<{ due: Date }>(NEXT_DUE, [after, worker.labels, worker.id]);
    return row?.due ?? null;
  }

  async markWaiting(live: readonly LiveWorker[]): Promise<number> {
    return (await this.db.rows(MARK_WAITING, [JSON.stringify(live)])).length;
  }

  async lockPinnedElsewhere(liveIds: readonly string[], limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(
      `SELECT ${SELECTED} FROM executions WHERE status = 'QUEUED' AND pinned_worker IS NOT NULL
          AND pinned_worker <> ALL($1::text[]) LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [liveIds, limit],
    );
    return rows.map((row) => Execution.restore(row));
  }

  async startedInTime(slots: readonly SlotDeadline[]): Promise<Set<string>> {
    if (slots.length === 0) return new Set();
    // the ledger of slots finds each slot's run
    const rows = await this.db.rows<{ jobId: string; slot: Date }>(
      `SELECT e.job_id AS "jobId", e.scheduled_for AS slot
         FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS s (job_id, slot, deadline)
         JOIN execution_slots k ON k.job_id = s.job_id AND k.slot = s.slot
         JOIN executions e ON e.id = k.execution_id AND e.trigger = 'SCHEDULE'
        WHERE e.started_at <= s.deadline`,
      [slots.map((s) => s.jobId), slots.map((s) => s.slot), slots.map((s) => s.deadline)],
    );
    return new Set(rows.map((row) => slotKey(row.jobId, row.slot)));
  }

  async noticeLongRunning(now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(NOTICE_LONG_RUNNING, [now, limit]);
    return rows.map((row) => Execution.restore(row));
  }

  async findWithOutputTails(ids: readonly string[], tailChars: number): Promise<Map<string, ExecutionWithOutputTail>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.rows<ExecutionProps & { outputTail: string }>(WITH_OUTPUT_TAILS, [ids, tailChars]);
    return new Map(
      rows.map(({ outputTail, ...props }) => [props.id, { execution: Execution.restore(props), outputTail }]),
    );
  }

  private async lockRunning(sql: string, now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.db.rows<ExecutionProps>(sql, [now, limit]);
    return rows.map((row) => Execution.restore(row));
  }
}

/** The columns of an execution row under the names of its props, for raw SQL read by Execution.restore. */
const SELECTED = EXECUTION_COLUMNS.select();

/**
 * A run of a slot (SCHEDULE, BACKFILL) or of a chain whose key another run holds is not stored:
 * the ExecutionKeysByTriggers migration's trigger skips it, so RETURNING names the runs stored.
 */
const INSERT = `INSERT INTO executions (${EXECUTION_COLUMNS.names()}) SELECT * FROM unnest(${EXECUTION_COLUMNS.arrays()})
  RETURNING id`;

/**
 * What saveAll sends per execution: the row's key, the version it was read with, and what a change
 * writes; then the lease. orbit_save_executions (the SaveByFunction migration) writes them.
 */
export const SAVED = ['id', 'version', ...EXECUTION_COLUMNS.changing()] as const;
const SAVE = `SELECT id FROM orbit_save_executions(${EXECUTION_COLUMNS.arrays(SAVED)}, $${SAVED.length + 1}) AS id`;

/**
 * A cancel: what any change writes, and who cancelled, in the one row version that moves the run
 * to the history. As conditional as the save.
 */
const CANCEL_SAVED = [...SAVED, 'cancelledBy'] as const;
const [, , ...CANCEL_WRITES] = CANCEL_SAVED;
const CANCEL = `UPDATE executions SET ${EXECUTION_COLUMNS.assignments(CANCEL_WRITES, 3)}, version = version + 1,
    lease_expires_at = NULL
  WHERE id = $1 AND version = $2 AND status IN (${TRANSITIONS.cancel.from.map((status) => `'${status}'`).join(', ')})
  RETURNING id`;

/**
 * What a worker ($n: its labels, $n+1: its id) may run: its selector is among the labels, it is
 * pinned nowhere else, it does not drain. orbit_claim_free holds the same rule for unlimited runs.
 */
const mayRun = (n: number) => `worker_selector <@ $${n}::jsonb AND (pinned_worker IS NULL OR pinned_worker = $${n + 1})
  AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = $${n + 1} AND w.draining)`;
/** Runs in claim order: highest priority first, then the oldest due. */
const CLAIM_ORDER = 'priority DESC, due_at, id';

/**
 * Up to $2 due runs the worker may run ($3 its labels, $4 its id), in claim order, locked.
 * Unlimited runs come from their own index (orbit_claim_free). Limited runs come lane by lane (a
 * group, or a job's own maxConcurrent): the lanes with queued runs are found by skipping through their index, a lane
 * already full by the statement's snapshot is passed over without a lock, and the others are
 * (those with a due run the worker may take) locked in lane order (so two claims never wait for
 * each other in a circle) and give at most
 * their free places, counted under the lock. A full lane therefore costs one index probe, however
 * many of its runs wait, and unlimited runs pay two probes of empty index ranges.
 */
export const CLAIM = `
  WITH RECURSIVE lanes AS (
    (SELECT ${LANE} AS lane, max_concurrent, concurrency_group FROM executions
      WHERE status = 'QUEUED' AND ${LIMITED} ORDER BY ${LANE} LIMIT 1)
    UNION ALL
    SELECT n.* FROM lanes l CROSS JOIN LATERAL (
      SELECT ${LANE} AS lane, max_concurrent, concurrency_group FROM executions
       WHERE status = 'QUEUED' AND ${LIMITED} AND ${LANE} > l.lane ORDER BY ${LANE} LIMIT 1) n
  ),
  limits AS (
    SELECT lane, coalesce(max_concurrent, (SELECT g."limit" FROM concurrency_groups g WHERE g.name = concurrency_group), $2) AS lane_limit
      FROM lanes
  ),
  open AS MATERIALIZED (
    SELECT lane, orbit_lane_room(lane, lane_limit) AS room FROM limits
     -- unqualified columns are the count's own rows: limits has none of their names
     WHERE lane_limit > (SELECT count(*) FROM executions WHERE status = 'RUNNING' AND ${LIMITED} AND ${LANE} = limits.lane)
       AND EXISTS (SELECT 1 FROM executions WHERE status = 'QUEUED' AND ${LIMITED} AND ${LANE} = limits.lane
                    AND due_at <= $1 AND ${mayRun(3)})
  ),
  picked AS (
    SELECT ${SELECTED} FROM orbit_claim_free($1, $2, $3, $4)
    UNION ALL
    SELECT c.* FROM open o CROSS JOIN LATERAL (
      SELECT ${SELECTED} FROM executions
       WHERE status = 'QUEUED' AND ${LIMITED} AND ${LANE} = o.lane AND due_at <= $1 AND ${mayRun(3)}
       ORDER BY ${CLAIM_ORDER} LIMIT least($2, o.room) FOR UPDATE SKIP LOCKED) c
     WHERE o.room > 0
  )
  SELECT * FROM picked ORDER BY priority DESC, "dueAt", id LIMIT $2`;

/**
 * The claim when no limited run waits, which is the common case: the unlimited runs alone
 * (orbit_claim_free, see the ClaimByIndex migration), and whether any limited run is queued
 * (orbit_limited_queued: the first entry of its index). When limited runs wait, it locks nothing
 * and CLAIM follows, so priorities still hold across limited and unlimited runs. PostgreSQL plans
 * CLAIM anew for each claim (its LIMIT is known only then), and every mention of executions costs
 * the planner its fourteen indexes: CLAIM names the table eight times (about 2 ms of planning per
 * claim on the bench machine); this, planned once, none.
 */
export const CLAIM_FREE = `
  WITH l AS MATERIALIZED (SELECT orbit_limited_queued() AS queued)
  SELECT ${SELECTED}, l.queued AS "limitedQueued"
    FROM l LEFT JOIN LATERAL orbit_claim_free($1, CASE WHEN l.queued THEN 0 ELSE $2 END, $3, $4) ON true`;

/** When the next run the worker may take falls due after $1, held by a limit or not (the claim decides). */
const NEXT_DUE = `SELECT ${earliestDue(` AND due_at > $1 AND ${mayRun(2)}`)} AS due`;

/**
 * Why no live worker ($1: [{id, labels, draining}]) can take each QUEUED run that has a selector
 * or a pin, or that is marked already (a mark is cleared when a worker turns up); with no live
 * worker at all, every queued run. Only rows whose reason changed are written.
 */
const MARK_WAITING = `
  WITH live AS (
    SELECT w->>'id' AS id, w->'labels' AS labels, (w->>'draining')::boolean AS draining
      FROM jsonb_array_elements($1::jsonb) w
  ),
  reasons AS (
    SELECT e.id, CASE
      WHEN e.pinned_worker IS NOT NULL THEN CASE
        WHEN NOT EXISTS (SELECT 1 FROM live WHERE live.id = e.pinned_worker)
          THEN 'its worker ' || e.pinned_worker || ' is not alive'
        WHEN NOT EXISTS (SELECT 1 FROM live WHERE live.id = e.pinned_worker AND NOT live.draining)
          THEN 'its worker ' || e.pinned_worker || ' is draining' END
      WHEN NOT EXISTS (SELECT 1 FROM live WHERE e.worker_selector <@ live.labels)
        THEN 'no live worker' || coalesce(' has ' || (SELECT string_agg(key || '=' || value, ', ' ORDER BY key)
                                                        FROM jsonb_each_text(e.worker_selector)), '')
      WHEN NOT EXISTS (SELECT 1 FROM live WHERE e.worker_selector <@ live.labels AND NOT live.draining)
        THEN 'every live worker' || coalesce(' with ' || (SELECT string_agg(key || '=' || value, ', ' ORDER BY key)
                                                            FROM jsonb_each_text(e.worker_selector)), '') || ' is draining'
      END AS reason
    FROM executions e
    WHERE e.status = 'QUEUED' AND (e.worker_selector <> '{}' OR e.pinned_worker IS NOT NULL
                                   OR e.waiting_for IS NOT NULL OR NOT EXISTS (SELECT 1 FROM live WHERE NOT live.draining))
  )
  UPDATE executions e SET waiting_for = r.reason FROM reasons r
   WHERE e.id = r.id AND e.status = 'QUEUED' AND e.waiting_for IS DISTINCT FROM r.reason
  RETURNING e.id`;

/** A job's runs that may still be cancelled: each status's part read by its own index. */
const ACTIVE = runsOfJob(SELECTED, 'job_id = $1', '', TRANSITIONS.cancel.from);
/**
 * The same, locked by one scan whose condition names both statuses: a run that starts while the
 * lock waits is locked as it is then (a part's own status would no longer hold, and the run be missed).
 */
const ACTIVE_LOCKED = `SELECT ${SELECTED} FROM executions
  WHERE id IN (SELECT id FROM (${runsOfJob('id', 'job_id = $1', '', TRANSITIONS.cancel.from)}) AS a)
    AND status IN (${TRANSITIONS.cancel.from.map((status) => `'${status}'`).join(', ')})
  FOR UPDATE`;

/** RUNNING executions matching `condition` (on $1, the instant), at most $2, locked, skipping rows others hold. */
const lockingRunning = (condition: string) =>
  `SELECT ${SELECTED} FROM executions WHERE status = 'RUNNING' AND ${condition} LIMIT $2 FOR UPDATE SKIP LOCKED`;
const EXPIRED_LEASES = lockingRunning('worker_id IS NOT NULL AND lease_expires_at < $1');
/** Through executions_long_running_idx: the runs with a limit not yet told, as many as run at once. */
const NOTICE_LONG_RUNNING = `
  UPDATE executions SET long_running_noticed = true
   WHERE id IN (SELECT id FROM executions
                 WHERE status = 'RUNNING' AND max_duration_seconds IS NOT NULL AND NOT long_running_noticed
                   AND started_at + max_duration_seconds * interval '1 second' <= $1
                 LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED)
     AND NOT long_running_noticed
  RETURNING ${SELECTED}`;

const WITH_OUTPUT_TAILS = `
  SELECT ${EXECUTION_COLUMNS.select(EXECUTION_COLUMNS.fields, 'e')},
         right(concat_ws(E'\\n', nullif(o.stdout, ''), nullif(o.stderr, '')), $2) AS "outputTail"
    FROM executions e LEFT JOIN execution_outputs o ON o.execution_id = e.id
   WHERE e.id = ANY ($1::uuid[])`;

const TIMED_OUT_OUTSIDE_RUNS = lockingRunning(
  "worker_id IS NULL AND started_at + timeout_seconds * interval '1 second' <= $1",
);
