import { constants } from 'node:os';
import type { Execution, ExecutionChange } from '../../executions/domain/execution.js';
import type { CommandOutcome } from './command-runner.js';

/** The exit code recorded when the command produced none of its own (it never started, or it was lost). */
export const NO_EXIT_CODE = -1;
/** The exit code of a timeout, as GNU `timeout` reports it. */
export const TIMEOUT_EXIT_CODE = 124;

/** What the domain is told about a command that ended: exit 0 succeeds, everything else fails with a reason. */
export function actionFor(outcome: CommandOutcome, timeoutSeconds: number): ExecutionChange {
  if (outcome.timedOut) return timedOut(timeoutSeconds);
  if (outcome.lost !== null) return lostWorker(`Worker lost: ${outcome.lost}`);
  if (outcome.error !== null) {
    return (e, now) => e.fail(NO_EXIT_CODE, `Command could not start: ${outcome.error}`, now);
  }
  if (outcome.code === 0) return (e, now) => e.succeed(0, now);
  if (outcome.code !== null) {
    const code = outcome.code;
    return (e, now) => e.fail(code, `Command exited with code ${code}`, now);
  }
  const signal = outcome.signal ?? 'an unknown signal';
  const number = constants.signals[signal as keyof typeof constants.signals];
  return (e, now) => e.fail(number ? 128 + number : NO_EXIT_CODE, `Command was killed by signal ${signal}`, now);
}

export const workerLost: ExecutionChange = lostWorker('Worker lost: lease expired');

/** A run whose worker vanished (its lease expired, or its command's keeper died): alerts tell it by the cause. */
function lostWorker(message: string): ExecutionChange {
  const change = (e: Execution, now: Date) => e.fail(NO_EXIT_CODE, message, now, 'worker_lost');
  return Object.assign(change, { cause: 'worker_lost' as const });
}

export function shutDown(graceSeconds: number): ExecutionChange {
  return (e, now) =>
    e.fail(NO_EXIT_CODE, `Worker shut down: the command was stopped after the ${graceSeconds}s shutdown grace`, now);
}

/** A run past its timeoutSeconds: the worker killed its command, or its outside runner never answered. */
export function timedOut(timeoutSeconds: number): ExecutionChange {
  const change = (e: Execution, now: Date) =>
    e.fail(TIMEOUT_EXIT_CODE, `Timed out after ${timeoutSeconds} seconds`, now, 'timeout');
  return Object.assign(change, { cause: 'timeout' as const });
}
