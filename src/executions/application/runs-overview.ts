import type { ExecutionStatus } from '../domain/execution-status.js';

/** The executions table at a glance; every count stops at a bound, so none reads more than that many rows. */
export interface RunsAtAGlance {
  /** Executions created at or after the window's start, by status. */
  createdSince: Record<ExecutionStatus, number>;
  queued: number;
  running: number;
  /** Queued, and due before the lateness threshold. */
  late: number;
  /** The due instant of the queued run that waits longest; null when none waits. */
  oldestQueuedDueAt: Date | null;
}

/** A read model of this module: counts of executions by index ranges, each bounded. */
export abstract class RunsOverview {
  /** Of the runs of these teams' jobs only, when `teams` is given. */
  abstract atAGlance(
    windowStart: Date,
    lateBefore: Date,
    countLimit: number,
    teams?: readonly string[],
  ): Promise<RunsAtAGlance>;
}
