import type { LastExecution, RecentRun } from '../../jobs/application/job-runs.js';

/** What the executions of a job created since an instant came to. */
export interface JobExecutionStats {
  /** Executions by status; statuses with none are absent. */
  counts: Record<string, number>;
  /** Percentiles of started → finished, in milliseconds, over finished runs that started; null without any. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** A job whose last runs failed, as many in a row as `failuresInRow` (runs: a run and its retries are one). */
export interface FailingJob {
  jobId: string;
  failuresInRow: number;
  /** Only the last of its failed attempts were read: it failed at least `failuresInRow` runs in a row. */
  atLeast: boolean;
  lastFinishedAt: Date;
}

/**
 * What the executions of jobs came to, read from the executions table for the answers about
 * jobs: a read model of this module, so that the jobs module never reads that table.
 */
export abstract class JobHistory {
  /** The most recent execution of each of the jobs that has one, in one query. */
  abstract lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>>;
  /** Counts and duration percentiles of the job's executions created at or after `since`. */
  abstract executionStats(jobId: string, since: Date): Promise<JobExecutionStats>;
  /**
   * The newest `count` runs that ended of each of the jobs, by creation (as their lists show
   * them), newest first, in one query.
   */
  abstract recentRuns(jobIds: readonly string[], count: number): Promise<Map<string, RecentRun[]>>;
  /** The jobs whose last run that succeeded or failed failed (of every job that ever ran: deleted ones too). */
  abstract failingJobIds(): Promise<string[]>;
  /**
   * Of the `candidates` jobs with the most failed attempts in a row, those whose last `minInRow`
   * runs or more failed, most failed runs first; each counted from its last `attemptsRead` failed
   * attempts at most. Of these teams' jobs only, when `teams` is given.
   */
  abstract failingRepeatedly(
    minInRow: number,
    candidates: number,
    attemptsRead: number,
    teams?: readonly string[],
  ): Promise<FailingJob[]>;
}
