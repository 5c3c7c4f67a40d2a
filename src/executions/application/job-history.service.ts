import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Clock } from '../../shared/domain/clock.js';
import { EXECUTION_STATUSES, ExecutionStatus } from '../domain/execution-status.js';
import { JobHistory, LastExecution } from './job-history.js';

const HOUR_MS = 3_600_000;

/** How the executions of a job created in the last `windowHours` hours went. */
export interface JobStats {
  windowHours: number;
  since: Date;
  /** Every status, 0 when none. */
  counts: Record<ExecutionStatus, number>;
  /** Started → finished, in milliseconds, over the finished runs that started; null when there are none. */
  durationMs: { p50: number | null; p95: number | null };
}

/** The executions side of the answers about jobs: each job's last run, and how its recent runs went. */
@Injectable()
export class JobHistoryService {
  constructor(
    private readonly history: JobHistory,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {}

  /** The most recent execution of each job that has one. */
  lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>> {
    return this.history.lastExecutions(jobIds);
  }

  /** Executions of the job created in the last `hours` hours: how many ended how, and how long runs took. */
  async stats(jobId: string, hours: number): Promise<JobStats> {
    const job = await this.jobs.get(jobId);
    const since = new Date(this.clock.now().getTime() - hours * HOUR_MS);
    const stats = await this.history.executionStats(job.id, since);
    const counts = Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, stats.counts[status] ?? 0]));
    return {
      windowHours: hours,
      since,
      counts: counts as Record<ExecutionStatus, number>,
      durationMs: { p50: stats.p50Ms, p95: stats.p95Ms },
    };
  }
}
