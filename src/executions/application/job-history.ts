/** The most recent execution of a job (by creation), as shown beside the job. */
export interface LastExecution {
  id: string;
  status: string;
  finishedAt: Date | null;
}

/** What the executions of a job created since an instant came to. */
export interface JobExecutionStats {
  /** Executions by status; statuses with none are absent. */
  counts: Record<string, number>;
  /** Percentiles of started → finished, in milliseconds, over finished runs that started; null without any. */
  p50Ms: number | null;
  p95Ms: number | null;
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
}
