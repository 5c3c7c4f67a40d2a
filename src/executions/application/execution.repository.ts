import type { Labels } from '../../shared/domain/labels.js';
import { Execution } from '../domain/execution.js';

/** The worker a claim is for: what it may run follows from its labels and its id (pinned runs, drain). */
export interface ClaimingWorker {
  id: string;
  labels: Labels;
}

/** What a heartbeat did to each id; an id in neither list is no longer the worker's RUNNING execution. */
export interface LeaseRenewal {
  /** Leases extended. */
  renewed: string[];
  /** Still the worker's, but another transaction held the row: its lease was left as it was. */
  held: string[];
}

/** A live worker as the placement sweep sees it. */
export interface LiveWorker extends ClaimingWorker {
  draining: boolean;
}

/** Persistence port of executions. Every state change is a conditional write on the version it was read with. */
export abstract class ExecutionRepository {
  abstract insert(execution: Execution): Promise<void>;
  /**
   * Inserts new executions in one statement and answers how many it inserted. A run of a slot
   * (SCHEDULE, BACKFILL: per job, slot and pinned worker) or of a chain (per job and upstream run)
   * whose key another run holds is skipped; any other conflict fails the whole statement.
   */
  abstract insertAll(executions: Execution[]): Promise<number>;
  /** Persists a transition; throws StaleWriteError when someone else changed the row first. */
  abstract save(execution: Execution): Promise<void>;
  /**
   * Persists the transitions of many executions in one statement, each on the version it was
   * read with, and answers those someone else changed first (they were not written). RUNNING
   * executions get `leaseExpiresAt` when given.
   */
  abstract saveAll(executions: Execution[], leaseExpiresAt?: Date | null): Promise<Execution[]>;
  abstract findById(id: string): Promise<Execution | null>;
  /** QUEUED or RUNNING executions of a job; inside a transaction they are locked for it. */
  abstract findActiveByJob(jobId: string): Promise<Execution[]>;

  /**
   * Locks up to `limit` due QUEUED executions `worker` may run (its selector, its pin, not
   * draining), by priority then oldest first, within their limits, skipping rows others hold.
   */
  abstract lockDue(now: Date, limit: number, worker: ClaimingWorker): Promise<Execution[]>;
  /** Extends the leases of `ids` still RUNNING on `workerId`; a row another transaction holds is not waited for. */
  abstract renewLeases(workerId: string, ids: string[], leaseExpiresAt: Date): Promise<LeaseRenewal>;
  /** Locks RUNNING executions whose worker's lease ran out before `now`. */
  abstract lockExpiredLeases(now: Date, limit: number): Promise<Execution[]>;
  /** Locks RUNNING executions started by an outside runner whose timeout passed by `now`. */
  abstract lockTimedOutOutsideRuns(now: Date, limit: number): Promise<Execution[]>;
  /**
   * Writes on each QUEUED execution why none of the `live` workers can take it (its
   * `waitingFor`), or clears it; answers how many changed. Not a state change: no version moves.
   */
  abstract markWaiting(live: readonly LiveWorker[]): Promise<number>;
  /** Locks QUEUED executions pinned to a worker that is not among `liveIds`. */
  abstract lockPinnedElsewhere(liveIds: readonly string[], limit: number): Promise<Execution[]>;
  /** When the next QUEUED execution `worker` may run falls due after `after`, if any. */
  abstract earliestDue(after: Date, worker: ClaimingWorker): Promise<Date | null>;

  /** Those of `slots` whose scheduled run started at or before the slot's deadline, by slotKey. */
  abstract startedInTime(slots: readonly SlotDeadline[]): Promise<Set<string>>;
  /**
   * Marks up to `limit` RUNNING executions that have run past their maxDurationSeconds at `now`
   * as told, and answers them: each is answered once, whichever node asks (rows others hold
   * are skipped, left to a later call).
   */
  abstract noticeLongRunning(now: Date, limit: number): Promise<Execution[]>;
  /** The executions among `ids` (one statement), each with the last `tailChars` characters of its output (stdout, then stderr). */
  abstract findWithOutputTails(
    ids: readonly string[],
    tailChars: number,
  ): Promise<Map<string, ExecutionWithOutputTail>>;
}

/** A schedule slot of a job and the instant by which its run must have started. */
export interface SlotDeadline {
  jobId: string;
  slot: Date;
  deadline: Date;
}

/** The key startedInTime answers a slot by. */
export const slotKey = (jobId: string, slot: Date): string => `${jobId}@${slot.getTime()}`;

export interface ExecutionWithOutputTail {
  execution: Execution;
  outputTail: string;
}
