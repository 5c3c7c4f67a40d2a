/**
 * Retention of job events. An execution's events are deleted with it, in the statement that
 * deletes it (a trigger); a job's events age out on the executions' rule of days.
 */
export abstract class EventRetention {
  /** Deletes at most `batchSize` job events from before `olderThan`; answers how many. */
  abstract pruneJobEvents(olderThan: Date, batchSize: number): Promise<number>;
}
