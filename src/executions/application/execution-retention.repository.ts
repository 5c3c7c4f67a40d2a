/**
 * Persistence port of the retention sweep. Kept apart from ExecutionRepository: it deletes rows
 * in bulk, which nothing else in Orbit does.
 */
export abstract class ExecutionRetentionRepository {
  /**
   * Deletes at most `batchSize` finished executions (SUCCEEDED, FAILED or CANCELLED) that
   * finished before `olderThan` and are not among the newest `keepPerJob` executions of their
   * job (by creation), created before `createdBefore` (see rowsCreatedBefore), with their output;
   * returns how many it deleted. QUEUED and RUNNING
   * executions are never deleted. One short statement: rows another transaction holds are
   * skipped, not waited for, and left to a later batch.
   */
  abstract pruneBatch(olderThan: Date, keepPerJob: number, batchSize: number, createdBefore: Date): Promise<number>;
  /**
   * Of the finished executions that `pruneBatch(olderThan, keepPerJob, …, createdBefore)` would
   * delete, locked or not, each job's first created one: the earliest finish among them; null
   * when there is none. What a pass left behind.
   */
  abstract oldestOverdue(olderThan: Date, keepPerJob: number, createdBefore: Date): Promise<Date | null>;
  /** The creation time of the oldest finished execution stored: the oldest run the history still holds. */
  abstract oldestKept(): Promise<Date | null>;
}
