import { Injectable } from '@nestjs/common';
import type { RunStatus } from '../domain/run-status.js';

/** The most recent run of a job (by creation), as shown beside the job. */
export interface LastExecution {
  id: string;
  status: string;
  finishedAt: Date | null;
}

/** A run of a job that ended, for the recent durations beside a job. */
export interface RecentRun {
  id: string;
  status: string;
  startedAt: Date | null;
  finishedAt: Date;
  /** Started → finished; null for a run cancelled before it started. */
  durationMs: number | null;
}

/** The last runs of a job that ended, and how many of them succeeded. */
export interface JobRecentRuns {
  jobId: string;
  runs: RecentRun[];
  successRate: number | null;
}

/** How the runs of a job created in the last `windowHours` hours went. */
export interface JobStats {
  windowHours: number;
  since: Date;
  /** Every status, 0 when none. */
  counts: Record<RunStatus, number>;
  /** Started → finished, in milliseconds, over the finished runs that started; null when there are none. */
  durationMs: { p50: number | null; p95: number | null };
  /** Among the runs of the window that succeeded or failed, the share that succeeded; null without any. */
  successRate: number | null;
}

/**
 * What the runs of jobs came to, for the answers about jobs (each job carries its last run):
 * implemented by the executions module, which owns the runs.
 */
export abstract class JobRunHistory {
  /** The most recent run of each of the jobs that has one. */
  abstract lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>>;
  /** The runs of the job created in the last `hours` hours; a NotFoundError for an unknown job. */
  abstract stats(jobId: string, hours: number): Promise<JobStats>;
  /** The newest `count` runs that ended of each job (by creation), in the order asked, each job once. */
  abstract recentRuns(jobIds: readonly string[], count: number): Promise<JobRecentRuns[]>;
  /** The jobs whose last run that succeeded or failed failed. */
  abstract failingJobIds(): Promise<string[]>;
}

/**
 * Where the jobs module reads the runs of its jobs. The executions module imports this one, so
 * it binds its history here (as the removal guards register) instead of this module depending
 * on it.
 */
@Injectable()
export class JobRuns extends JobRunHistory {
  private history: JobRunHistory | undefined;

  bind(history: JobRunHistory): void {
    this.history = history;
  }

  lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>> {
    return this.bound().lastExecutions(jobIds);
  }

  stats(jobId: string, hours: number): Promise<JobStats> {
    return this.bound().stats(jobId, hours);
  }

  recentRuns(jobIds: readonly string[], count: number): Promise<JobRecentRuns[]> {
    return this.bound().recentRuns(jobIds, count);
  }

  failingJobIds(): Promise<string[]> {
    return this.bound().failingJobIds();
  }

  private bound(): JobRunHistory {
    if (!this.history) throw new Error('No run history is bound to JobRuns: the executions module binds it');
    return this.history;
  }
}
