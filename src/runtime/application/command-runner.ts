import type { LauncherKind } from '../../config/orbit-config.js';
import type { ExecutionOutput } from '../../executions/application/execution-output.repository.js';

export interface CommandRequest {
  /** The execution id: names the run in later calls. */
  id: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  killGraceMs: number;
  outputLimitBytes: number;
}

export interface CommandOutcome {
  /** The exit code, when the shell exited by itself. */
  code: number | null;
  /** The signal that ended the shell, if one did. */
  signal: string | null;
  /** Why the command could not start, if it could not. */
  error: string | null;
  /** Why the command was lost while it ran (its process group was killed and is gone), if it was. */
  lost: string | null;
  timedOut: boolean;
  /** Stopped through `kill` (cancel, lost lease, shutdown). */
  killed: boolean;
  output: ExecutionOutput;
}

/** Runs shell commands as real processes, each in its own process group. */
export abstract class CommandRunner {
  /** Which launcher starts the commands, known once prepared. */
  abstract readonly launcherKind: LauncherKind;
  /** Makes the working directory ready for the commands (and for the user they run as). */
  abstract prepare(workDir: string): Promise<void>;
  /** Resolves when the command (and its process group) is done; `onOutput` gets bounded snapshots meanwhile. */
  abstract run(request: CommandRequest, onOutput: (output: ExecutionOutput) => void): Promise<CommandOutcome>;
  /** SIGTERM to the command's process group, SIGKILL after the grace. */
  abstract kill(id: string): void;
  /** Kills whatever still runs and releases the runner. */
  abstract close(): Promise<void>;
}
