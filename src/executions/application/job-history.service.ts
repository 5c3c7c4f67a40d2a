import { Injectable } from '@nestjs/common';
import { JobRecentRuns, JobRunHistory, JobStats, LastExecution } from '../../jobs/application/job-runs.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import type { RunStatus } from '../../jobs/domain/run-status.js';
import { Clock } from '../../shared/domain/clock.js';
import { EXECUTION_STATUSES } from '../domain/execution-status.js';
import { successRate } from '../domain/success-rate.js';
import { FailingJob, JobHistory } from './job-history.js';

const HOUR_MS = 3_600_000;

/** A failing job that still exists, by name. */
export interface NamedFailingJob extends FailingJob {
  name: string;
}

/**
 * The executions side of the answers about jobs: each job's last run, and how its recent runs
 * went. The jobs module reads it through its JobRuns, where ExecutionsModule binds it.
 */
@Injectable()
export class JobHistoryService extends JobRunHistory {
  constructor(
    private readonly history: JobHistory,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
  ) {
    super();
  }

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
      counts: counts as Record<RunStatus, number>,
      durationMs: { p50: stats.p50Ms, p95: stats.p95Ms },
      successRate: successRate(counts.SUCCEEDED ?? 0, counts.FAILED ?? 0),
    };
  }

  /** The newest `count` runs that ended of each job (by creation), in the order asked. */
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
   * Live jobs whose last `minInRow` runs or more failed, most first. Deleted jobs keep their
   * record, so a few more are read than shown; the failed runs of each are counted from its
   * attempts, so only that many jobs are looked at (see JobHistory). Of these teams' jobs only,
   * when `teams` is given.
   */
  async failingRepeatedly(
    minInRow: number,
    limit: number,
    attemptsRead: number,
    teams?: readonly string[],
  ): Promise<NamedFailingJob[]> {
    const failing = await this.history.failingRepeatedly(minInRow, limit * 4, attemptsRead, teams);
    const names = await this.jobs.namesOf(failing.map((job) => job.jobId));
    return failing
      .flatMap((job) => {
        const name = names.get(job.jobId);
        return name === undefined ? [] : [{ ...job, name }];
      })
      .slice(0, limit);
  }
}
