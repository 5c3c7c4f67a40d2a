/**
 * What must happen to a job's executions before the job goes: implemented by the executions
 * module, so that jobs do not depend on it.
 */
export abstract class JobRemovalGuard {
  /** Throws ConflictError while an execution runs; cancels the queued ones. */
  abstract releaseExecutionsOf(jobId: string): Promise<void>;
}
