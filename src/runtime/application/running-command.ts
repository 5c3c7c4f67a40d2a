import type { ExecutionOutput } from '../../executions/application/execution-output.repository.js';
import type { Execution, ExecutionChange } from '../../executions/domain/execution.js';

/** A command a worker claimed, from its launch until its outcome is recorded. */
export interface RunningCommand {
  execution: Execution;
  /** The latest snapshot of what it printed, and whether it is newer than the stored one. */
  output: ExecutionOutput | null;
  outputDirty: boolean;
  /** Set when shutdown stopped the command: its failure names the shutdown, not the signal. */
  stoppedBy: ExecutionChange | null;
  /** Resolves when the command has ended (its outcome waits to be recorded). */
  exited: Promise<void>;
  hasExited: boolean;
  /** Resolves when the outcome is recorded, or given up on. */
  recorded: Promise<void>;
  markRecorded: () => void;
}

/** What a worker runs, by execution id. */
export type RunningCommands = ReadonlyMap<string, RunningCommand>;
