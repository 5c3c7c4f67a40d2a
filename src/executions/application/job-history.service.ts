import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Clock } from '../../shared/domain/clock.js';
import { EXECUTION_STATUSES, ExecutionStatus } from '../domain/execution-status.js';
import { successRate } from '../domain/success-rate.js';
import { FailingJob, JobHistory, LastExecution, RecentRun } from './job-history.js';

const HOUR_MS = 3_600_000;

/** How the executions of a job created in the last `windowHours` hours went. */
export interface JobStats {
  windowHours: number;
  since: Date;
  /** Every status, 0 when none. */
  counts: Record<ExecutionStatus, number>;
  /** Started → finished, in milliseconds, over the finished runs that started; null when there are none. */
  durationMs: { p50: number | null; p95: number | null };
  /** Among the runs of the window that succeeded or failed, the share that succeeded; null without any. */
  successRate: number | null;
}

/** The last runs of a job that ended, and how many of them succeeded. */
export interface JobRecentRuns {
  jobId: string;
  runs: RecentRun[];
  successRate: number | null;
}

/** A failing job that still exists, by name. */
export interface NamedFailingJob extends FailingJob {
  name: string;
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
      successRate: successRate(counts.SUCCEEDED ?? 0, counts.FAILED ?? 0),
    };
  }

  /** The last `count` runs that ended of each job, in the order asked. */
  async recentRuns(jobIds: readonly string[], count: number): Promise<JobRecentRuns[]> {
    const unique = [...new Set(jobIds)];
    const runs = await this.history.recentRuns(unique, count);
    return unique.map((jobId) => {
      const list = runs.get(jobId) ?? [];
      const of = (status: string) => list.filter((run) => run.status === status).length;
      return { jobId, runs: list, successRate: successRate(of('SUCCEEDED'), of('FAILED')) };
    });
  }

  /** The jobs whose last run that succeeded or failed failed. */
  failingJobIds(): Promise<string[]> {
    return this.history.failingJobIds();
  }

  /**
   * Live jobs that failed at least `minInRow` times in a row, most first. Deleted jobs keep
   * their record, so a few more are read than shown.
   */
  async failingRepeatedly(minInRow: number, limit: number): Promise<NamedFailingJob[]> {
    const failing = await this.history.failingRepeatedly(minInRow, limit * 4);
    const names = await this.jobs.namesOf(failing.map((job) => job.jobId));
    return failing
      .flatMap((job) => {
        const name = names.get(job.jobId);
        return name === undefined ? [] : [{ ...job, name }];
      })
      .slice(0, limit);
  }
}
