import { Injectable } from '@nestjs/common';
import { AuditEvent, AuditLog } from '../../audit/application/audit-log.js';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { CANCELLERS } from '../domain/execution.js';
import { ExecutionStatus } from '../domain/execution-status.js';
import { ExecutionsService } from './executions.service.js';

/** Who cancelled a run, as the run keeps it; `unknown` when it does not, and the audit trail does not show. */
export const CANCELLATION_SOURCES = [...CANCELLERS, 'unknown'] as const;
export type CancellationSource = (typeof CANCELLATION_SOURCES)[number];

export interface Cancellation {
  executionId: string;
  /** The run's finishedAt, which the cancel set. */
  at: Date;
  by: CancellationSource;
  /** The token's name; null when Orbit did it, or neither the run nor the trail says. */
  actor: string | null;
  /** The scheduler's: the run of the next slot, which replaced it. */
  replacedBy: string | null;
}

/** A read model of this module: the runs that replace another. */
export abstract class ReplacingRuns {
  /** A run of the schedule of `jobId`, other than `exceptId`, created from `from` to `to` (both in); null when none. */
  abstract scheduledBetween(jobId: string, exceptId: string, from: Date, to: Date): Promise<string | null>;
}

/**
 * The trail records a request once it succeeded, moments after the change it made: its entry is
 * looked for in this window after the run's end, a short range of the run's entries (or its job's).
 */
const RECORDED_WITHIN_MS = 60_000;
/**
 * A scheduler's pass queues the next slot's run as of the instant it began, after it cancelled
 * the earlier run: moments before the cancel, never after it.
 */
const REPLACED_WITHIN_MS = 10_000;

/**
 * How a cancelled run came to be cancelled: as the run keeps it, and, for a run cancelled before
 * runs kept it, from the audit trail. The trail records a request just after the change it made,
 * so a read in between finds no entry yet: `unknown`, ask again.
 */
@Injectable()
export class Cancellations {
  constructor(
    private readonly executions: ExecutionsService,
    private readonly audit: AuditLog,
    private readonly jobs: JobsService,
    private readonly replacing: ReplacingRuns,
  ) {}

  async of(id: string): Promise<Cancellation> {
    const execution = await this.executions.get(id);
    const at = execution.finishedAt;
    if (execution.status !== ExecutionStatus.CANCELLED || at === null) {
      throw new NotFoundError(`Execution ${id} was not cancelled: it is ${execution.status}`);
    }
    const found = { executionId: id, at, actor: null, replacedBy: null };
    const kept = execution.cancelledBy;
    if (kept) {
      const replacedBy = kept.by === 'scheduler' ? await this.replacedBy(execution.jobId, id, at) : null;
      return { ...found, ...kept, replacedBy };
    }
    const cancel = await this.recorded('execution.cancelled', id, at);
    if (cancel) return { ...found, by: 'caller', actor: cancel.actor };
    const deletion = await this.recorded('job.deleted', execution.jobId, at);
    const jobGone = !(await this.jobs.namesOf([execution.jobId])).has(execution.jobId);
    if (deletion || jobGone) return { ...found, by: 'job_deletion', actor: deletion?.actor ?? null };
    const replacedBy = await this.replacedBy(execution.jobId, id, at);
    return replacedBy ? { ...found, by: 'scheduler', replacedBy } : { ...found, by: 'unknown' };
  }

  /** The run of the slot that fired as the scheduler cancelled run `id` at `at`, if it was stored. */
  private replacedBy(jobId: string, id: string, at: Date): Promise<string | null> {
    return this.replacing.scheduledBetween(jobId, id, new Date(at.getTime() - REPLACED_WITHIN_MS), at);
  }

  private async recorded(action: AuditedAction, targetId: string, at: Date): Promise<AuditEvent | undefined> {
    const page = await this.audit.list(
      { actions: [action], targetId, from: at, to: new Date(at.getTime() + RECORDED_WITHIN_MS) },
      { limit: 1 },
    );
    return page.items[0];
  }
}
