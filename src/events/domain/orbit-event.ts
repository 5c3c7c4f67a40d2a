/** What an execution event's type says: the status it moved to. */
export const EXECUTION_EVENT_TYPES = [
  'execution.queued',
  'execution.running',
  'execution.succeeded',
  'execution.failed',
  'execution.cancelled',
] as const;

/** A job's changes; pausing is turning `enabled` off (the schedule stops), resuming turning it on. */
export const JOB_EVENT_TYPES = ['job.created', 'job.updated', 'job.paused', 'job.resumed', 'job.deleted'] as const;

/**
 * A slot's fate when it did not fire as planned: skipped by FORBID (`detail.activeExecutionId`
 * ran then), missed while no scheduler ran (`detail`: the policy and the missed slots), or late
 * (no run had started `lateAfterSeconds` after it). Their writers append them.
 */
export const SLOT_EVENT_TYPES = ['slot.skipped', 'slot.missed', 'slot.late'] as const;

/** Notices about a run that are not a status change: still running past `maxDurationSeconds`. */
export const EXECUTION_NOTICE_TYPES = ['execution.long_running'] as const;

export const EVENT_TYPES = [
  ...EXECUTION_EVENT_TYPES,
  ...JOB_EVENT_TYPES,
  ...SLOT_EVENT_TYPES,
  ...EXECUTION_NOTICE_TYPES,
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One state change, as the database recorded it in the transaction that made it. Execution
 * fields are null on job events; `from` is null when an execution was created.
 */
export interface OrbitEvent {
  /** The position in the one ordered stream of events: strictly increasing, with gaps. */
  seq: number;
  type: EventType;
  /** The change's own instant: createdAt, startedAt or finishedAt of the execution; updatedAt or deletedAt of the job. */
  at: Date;
  jobId: string;
  executionId: string | null;
  from: string | null;
  to: string | null;
  attempt: number | null;
  trigger: string | null;
  exitCode: number | null;
  errorMessage: string | null;
  workerId: string | null;
  /** On a failure whose writer knew more than its message: `timeout`, `worker_lost`; else null. */
  cause: string | null;
  /** A FAILED execution whose retry was queued in the same transaction: true "will retry", false "failed for good". */
  retryQueued: boolean;
  /** The schedule slot a slot event is about; else null. */
  slot: Date | null;
  /** What an appended event's type adds (see SLOT_EVENT_TYPES); else null. */
  detail: Record<string, unknown> | null;
}

/** An event a writer appends itself (the database's triggers write the status changes). */
export type AppendedEvent = Pick<OrbitEvent, 'type' | 'at' | 'jobId'> &
  Partial<Pick<OrbitEvent, 'executionId' | 'attempt' | 'workerId' | 'slot' | 'detail'>>;
