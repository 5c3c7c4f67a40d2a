/** The execution that fired a schedule slot, as the timeline shows it. */
export interface ScheduledRun {
  id: string;
  status: string;
  scheduledFor: Date;
}

/** The executions that fired given slots of a job: a read model of this module for the timeline. */
export abstract class ScheduledRuns {
  /** The SCHEDULE executions of the job for those of `slots` that fired (one index probe each). */
  abstract forSlots(jobId: string, slots: readonly Date[]): Promise<ScheduledRun[]>;
}
