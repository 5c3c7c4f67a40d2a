import { randomUUID } from 'node:crypto';
import { ConflictError, IllegalTransitionError, InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { INT32 } from '../../shared/domain/int32.js';
import type { Labels } from '../../shared/domain/labels.js';
import { ExecutionAction, ExecutionStatus, TRANSITIONS } from './execution-status.js';

export const EXECUTION_TRIGGERS = ['MANUAL', 'SCHEDULE', 'RETRY', 'CHAIN', 'BACKFILL'] as const;
export type ExecutionTrigger = (typeof EXECUTION_TRIGGERS)[number];

/** The job configuration an execution copies when it is created, so later edits never rewrite history. */
export interface JobSnapshot {
  jobId: string;
  command: string;
  maxRetries: number;
  timeoutSeconds: number;
  /** Only a worker with every pair among its labels may claim it. */
  workerSelector: Labels;
  /** At most this many runs of the job RUNNING at once (null: no limit of its own). */
  maxConcurrent: number | null;
  /** The concurrency group whose limit it counts against (null: none). */
  concurrencyGroup: string | null;
  priority: number;
  /** Running longer than this is told once (`execution.long_running`); the run goes on. Null: no limit. */
  maxDurationSeconds: number | null;
}

/** The job's settings a run copies: the one list forJob and snapshot follow. */
const COPIED_FROM_JOB = [
  'command',
  'maxRetries',
  'timeoutSeconds',
  'maxDurationSeconds',
  'workerSelector',
  'maxConcurrent',
  'concurrencyGroup',
  'priority',
] as const satisfies readonly (keyof JobSnapshot)[];

function pick<T, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, source[key]])) as Pick<T, K>;
}

type PlacementField = 'workerSelector' | 'maxConcurrent' | 'concurrencyGroup' | 'priority';
/** Job settings a snapshot may leave out (older callers, tests): they take their defaults. */
type DefaultedField = PlacementField | 'maxDurationSeconds';
/** A snapshot as `create` takes it: without placement, a run goes anywhere, unlimited, at priority 0. */
export type SnapshotInput = Omit<JobSnapshot, DefaultedField> & Partial<Pick<JobSnapshot, DefaultedField>>;

/** A job as a run copies it (a Job of the jobs module is one), named here so that this domain needs no other. */
export type JobConfiguration = Omit<JobSnapshot, 'jobId'> & { id: string; runOn: 'one' | 'all' };

export interface ExecutionProps extends JobSnapshot {
  id: string;
  status: ExecutionStatus;
  attempt: number;
  trigger: ExecutionTrigger;
  /** The schedule slot this execution fires for (SCHEDULE and BACKFILL, and their retries). */
  scheduledFor: Date | null;
  /** The failed execution this one retries (RETRY only). */
  retryOf: string | null;
  /** Not claimed by a worker before this instant (retry backoff, schedule slot). */
  dueAt: Date;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  exitCode: number | null;
  errorMessage: string | null;
  /** The worker that runs it; null while queued or when an outside runner started it. */
  workerId: string | null;
  version: number;
  /** What a failure was, when its writer knew more than the message says; null otherwise. */
  failureCause: FailureCause | null;
  /** The only worker that may run it (a fire of a `runOn: all` job), retries included; null: any. */
  pinnedWorker: string | null;
  /** While QUEUED: why no live worker can take it now (see the placement sweep); null otherwise. */
  waitingFor: string | null;
  /** The values of the job's parameters this run has (the command sees ORBIT_PARAM_<NAME>). */
  parameters: Record<string, string>;
  /** The upstream execution whose outcome started this one (CHAIN, and its retries). */
  triggeredBy: string | null;
  /** That upstream execution's final status. */
  upstreamStatus: string | null;
  /** Who cancelled it: null unless it was cancelled, and for a run cancelled before Orbit stored it. */
  cancelledBy: CancelledBy | null;
}

/**
 * Who cancels a run: a caller of the API (the dashboard's Cancel too), the deletion of its job
 * (its queued runs go with it), or the scheduler, which cancels the earlier run of a REPLACE job
 * when the next slot fires. Nothing else cancels: a shutdown, a lost worker and a timeout fail a run.
 */
export const CANCELLERS = ['caller', 'job_deletion', 'scheduler'] as const;
export type Canceller = (typeof CANCELLERS)[number];

export interface CancelledBy {
  by: Canceller;
  /** The name of the token that cancelled it, or that deleted its job; null when Orbit did it. */
  actor: string | null;
}

/** What a failure was, when its writer knows more than its message says: what metrics count, never the text. */
export const FAILURE_CAUSES = ['timeout', 'worker_lost'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];

/**
 * A change applied to an execution at an instant: one of its action methods, with its arguments,
 * and the cause of the failure it records when there is one to tell.
 */
export type ExecutionChange = ((execution: Execution, now: Date) => void) & { readonly cause?: FailureCause };

export interface NewExecution {
  trigger?: ExecutionTrigger;
  scheduledFor?: Date | null;
  dueAt?: Date;
  pinnedWorker?: string | null;
  parameters?: Record<string, string>;
  /** The upstream execution and its final status (CHAIN). */
  upstream?: { executionId: string; status: string };
}

/** One concrete run of a job, with a guarded lifecycle: see TRANSITIONS. */
export class Execution {
  private constructor(private props: ExecutionProps) {}

  static create(job: SnapshotInput, now: Date, options: NewExecution = {}): Execution {
    return new Execution({
      id: randomUUID(),
      jobId: job.jobId,
      command: job.command,
      maxRetries: job.maxRetries,
      timeoutSeconds: job.timeoutSeconds,
      workerSelector: job.workerSelector ?? {},
      maxConcurrent: job.maxConcurrent ?? null,
      concurrencyGroup: job.concurrencyGroup ?? null,
      priority: job.priority ?? 0,
      maxDurationSeconds: job.maxDurationSeconds ?? null,
      status: ExecutionStatus.QUEUED,
      attempt: 1,
      trigger: options.trigger ?? 'MANUAL',
      scheduledFor: options.scheduledFor ?? null,
      retryOf: null,
      dueAt: options.dueAt ?? now,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      errorMessage: null,
      workerId: null,
      version: 1,
      failureCause: null,
      pinnedWorker: options.pinnedWorker ?? null,
      waitingFor: null,
      parameters: options.parameters ?? {},
      triggeredBy: options.upstream?.executionId ?? null,
      upstreamStatus: options.upstream?.status ?? null,
      cancelledBy: null,
    });
  }

  /** A run of `job` with a copy of its configuration as it is now. */
  static forJob(job: JobConfiguration, now: Date, options: NewExecution = {}): Execution {
    return Execution.create({ jobId: job.id, ...pick(job, COPIED_FROM_JOB) }, now, options);
  }

  static restore(props: ExecutionProps): Execution {
    return new Execution({ ...props });
  }

  /** QUEUED → RUNNING. `workerId` names the worker that claimed it, null for an outside runner. */
  start(now: Date, workerId: string | null = null): void {
    this.transition('start');
    this.props.startedAt = now;
    this.props.workerId = workerId;
  }

  /** RUNNING → SUCCEEDED. Any integer is accepted as the exit code. */
  succeed(exitCode: number, now: Date): void {
    this.transition('succeed', () => requireInteger(exitCode));
    this.props.exitCode = exitCode;
    this.props.finishedAt = now;
  }

  /** RUNNING → FAILED. The state is checked first, then the message. */
  fail(exitCode: number, errorMessage: string, now: Date, cause: FailureCause | null = null): void {
    this.transition('fail', () => {
      requireInteger(exitCode);
      if (typeof errorMessage !== 'string' || errorMessage.trim() === '') {
        throw new InvalidArgumentError('Error message must not be blank', 'errorMessage');
      }
      if (errorMessage.includes('\u0000')) {
        throw new InvalidArgumentError('errorMessage must not contain NUL characters', 'errorMessage');
      }
    });
    this.props.exitCode = exitCode;
    this.props.errorMessage = errorMessage;
    this.props.finishedAt = now;
    this.props.failureCause = cause;
  }

  /** QUEUED or RUNNING → CANCELLED, by `by`. A queued execution that is cancelled never gets a startedAt. */
  cancel(now: Date, by: CancelledBy): void {
    this.transition('cancel');
    this.props.finishedAt = now;
    this.props.cancelledBy = { ...by };
  }

  /**
   * Lets an outside runner (the API's start, succeed and fail) act, or refuses: first with the
   * lifecycle's own message, then, on a run a worker holds, with a conflict. Only that worker
   * knows how its command ends; a result forged over it would be the one chains and alerts
   * follow, and the worker's real one would be dropped. Cancel stays open: its worker stops it.
   */
  requireOutsideRunnerMay(action: ExecutionAction): void {
    const rule = TRANSITIONS[action];
    if (!rule.from.includes(this.props.status)) throw new IllegalTransitionError(rule.refusal);
    if (this.props.status === ExecutionStatus.RUNNING && this.props.workerId !== null) {
      throw new ConflictError(
        `Execution ${this.props.id} is being run by worker ${this.props.workerId}: only that worker reports how it ends (cancel it to stop it)`,
      );
    }
  }

  /**
   * Whether a failure of this execution earns another attempt. A pinned run that lost its worker
   * does not: a worker's id names one process, which is gone, and its retry could run nowhere.
   */
  get retryable(): boolean {
    if (this.props.pinnedWorker !== null && this.props.failureCause === 'worker_lost') return false;
    return this.props.status === ExecutionStatus.FAILED && this.props.attempt <= this.props.maxRetries;
  }

  /** Whether the run is in a lane with a limit: its job's most concurrent runs, or a concurrency group. */
  get limited(): boolean {
    return this.props.maxConcurrent !== null || this.props.concurrencyGroup !== null;
  }

  /** The next attempt of a failed execution: same copied configuration, due after `delayMs`. */
  retry(now: Date, delayMs: number): Execution {
    if (!this.retryable) {
      throw new IllegalTransitionError('Only failed executions with retries left can be retried');
    }
    // the next attempt stands for the same slot, with the same inputs, after the same upstream run, on the same pin
    const { scheduledFor, parameters, triggeredBy, upstreamStatus, pinnedWorker } = this.props;
    const next = Execution.create(this.snapshot(), now, {
      trigger: 'RETRY',
      dueAt: new Date(now.getTime() + delayMs),
      pinnedWorker,
      scheduledFor,
      parameters,
      upstream: triggeredBy && upstreamStatus ? { executionId: triggeredBy, status: upstreamStatus } : undefined,
    });
    next.props.attempt = this.props.attempt + 1;
    next.props.retryOf = this.props.id;
    return next;
  }

  snapshot(): JobSnapshot {
    return { jobId: this.props.jobId, ...pick(this.props, COPIED_FROM_JOB) };
  }

  /** Called by the repository once a conditional write landed: the stored version moved on. */
  persisted(): void {
    this.props.version += 1;
  }

  toProps(): ExecutionProps {
    return { ...this.props };
  }

  get id(): string {
    return this.props.id;
  }
  get jobId(): string {
    return this.props.jobId;
  }
  get status(): ExecutionStatus {
    return this.props.status;
  }
  get command(): string {
    return this.props.command;
  }
  get attempt(): number {
    return this.props.attempt;
  }
  get timeoutSeconds(): number {
    return this.props.timeoutSeconds;
  }
  get maxRetries(): number {
    return this.props.maxRetries;
  }
  get maxDurationSeconds(): number | null {
    return this.props.maxDurationSeconds;
  }
  get trigger(): ExecutionTrigger {
    return this.props.trigger;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get scheduledFor(): Date | null {
    return this.props.scheduledFor;
  }
  get dueAt(): Date {
    return this.props.dueAt;
  }
  get startedAt(): Date | null {
    return this.props.startedAt;
  }
  get finishedAt(): Date | null {
    return this.props.finishedAt;
  }
  get exitCode(): number | null {
    return this.props.exitCode;
  }
  get errorMessage(): string | null {
    return this.props.errorMessage;
  }
  get failureCause(): FailureCause | null {
    return this.props.failureCause;
  }
  get parameters(): Record<string, string> {
    return this.props.parameters;
  }
  get triggeredBy(): string | null {
    return this.props.triggeredBy;
  }
  get upstreamStatus(): string | null {
    return this.props.upstreamStatus;
  }
  get workerId(): string | null {
    return this.props.workerId;
  }
  get version(): number {
    return this.props.version;
  }
  get workerSelector(): Labels {
    return this.props.workerSelector;
  }
  get pinnedWorker(): string | null {
    return this.props.pinnedWorker;
  }
  get waitingFor(): string | null {
    return this.props.waitingFor;
  }
  get cancelledBy(): CancelledBy | null {
    return this.props.cancelledBy;
  }

  private transition(action: ExecutionAction, checkArguments?: () => void): void {
    const rule = TRANSITIONS[action];
    if (!rule.from.includes(this.props.status)) throw new IllegalTransitionError(rule.refusal);
    checkArguments?.();
    this.props.status = rule.to;
    this.props.waitingFor = null;
  }
}

function requireInteger(exitCode: number): void {
  if (!Number.isInteger(exitCode) || exitCode < INT32.min || exitCode > INT32.max) {
    throw new InvalidArgumentError('exitCode must be a 32-bit integer', 'exitCode');
  }
}
