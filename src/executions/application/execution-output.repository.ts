export interface ExecutionOutput {
  stdout: string;
  stderr: string;
  /** Whether older output was dropped to keep only the last ORBIT_OUTPUT_LIMIT_KB of each stream. */
  truncated: boolean;
}

/** One execution's output as it stood at an instant. */
export interface OutputSnapshot {
  executionId: string;
  output: ExecutionOutput;
}

/** The captured output of an execution: written by its worker while it runs, read by any node. */
export abstract class ExecutionOutputRepository {
  /**
   * Stores the snapshots taken at `now`, in one statement. A snapshot never replaces one taken
   * later, and an empty output needs no row (reading it answers empty).
   */
  abstract saveAll(snapshots: OutputSnapshot[], now: Date): Promise<void>;
  abstract find(executionId: string): Promise<ExecutionOutput | null>;
}
