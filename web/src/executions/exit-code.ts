import type { Execution } from '../api/client';

/**
 * The API's exit code of a command that gave none of its own: it could not start, its worker
 * shut down and stopped it, or its worker was lost. The error message says which.
 */
export const NO_EXIT_CODE = -1;

/** The exit code as a reader takes it: '—' before there is one, 'none' when the command gave none. */
export function exitCodeText({ exitCode }: Pick<Execution, 'exitCode'>): string {
  if (exitCode === null) return '—';
  return exitCode === NO_EXIT_CODE ? 'none' : String(exitCode);
}

/** In a list of runs: a code the command gave none of is followed by why. */
export function exitCodeWithReason(execution: Pick<Execution, 'exitCode' | 'errorMessage'>): string {
  const text = exitCodeText(execution);
  return execution.exitCode === NO_EXIT_CODE && execution.errorMessage ? `${text}: ${execution.errorMessage}` : text;
}
