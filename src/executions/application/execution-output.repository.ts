export interface ExecutionOutput {
  stdout: string;
  stderr: string;
  /** Whether older output was dropped to keep only the last ORBIT_OUTPUT_LIMIT_KB of each stream. */
  truncated: boolean;
}

/** The captured output of an execution: written by its worker while it runs, read by any node. */
export abstract class ExecutionOutputRepository {
  abstract save(executionId: string, output: ExecutionOutput, now: Date): Promise<void>;
  abstract find(executionId: string): Promise<ExecutionOutput | null>;
}
