import { setTimeout as sleep } from 'node:timers/promises';
import { Execution } from '../domain/execution.js';
import { ExecutionStatus, isFinal } from '../domain/execution-status.js';
import { newText } from '../../shared/domain/text-tail.js';
import { ExecutionOutput } from './execution-output.repository.js';

export type OutputStreamName = 'stdout' | 'stderr';

const STREAMS: readonly OutputStreamName[] = ['stdout', 'stderr'];

/** What a follower of an execution's output is told, in order. */
export type OutputEvent =
  /** Text the stream printed since the previous event of that stream. */
  | { type: OutputStreamName; text: string }
  /** Output of `stream` was dropped before it could be sent; the next event of it is its whole stored tail. */
  | { type: 'truncated'; stream: OutputStreamName }
  /** The execution is final and everything stored of its output was sent. */
  | { type: 'end'; status: ExecutionStatus; exitCode: number | null };

/** Where the follower reads from: ExecutionsService answers both (NotFoundError for an unknown id). */
export interface OutputSource {
  get(id: string): Promise<Execution>;
  output(id: string): Promise<ExecutionOutput>;
}

export interface FollowOptions {
  /** Between two reads of the stored output (workers store it about every second). */
  pollMs: number;
  /** The clock's now: a run cancelled only moments ago may still get its last output stored. */
  now: () => Date;
  /** Stops the polling: the client went away. */
  signal: AbortSignal;
  /**
   * How long after a cancellation of a running command its output may still arrive: the worker
   * stores the last output once the killed command has exited. Default 3 s.
   */
  cancelSettleMs?: number;
}

/**
 * Follows the stored output of an execution until it is final: yields the text each stream
 * printed since the last read, then `end`. The status is read before the output, so for an
 * execution that SUCCEEDED or FAILED the last read has its complete output (the worker stores
 * both in one transaction). Ends quietly, without `end`, when `signal` aborts.
 */
export async function* followOutput(
  source: OutputSource,
  id: string,
  options: FollowOptions,
): AsyncGenerator<OutputEvent, void, undefined> {
  const { pollMs, now, signal } = options;
  const cancelSettleMs = options.cancelSettleMs ?? 3_000;
  const sent: Record<OutputStreamName, string> = { stdout: '', stderr: '' };
  let settleReads: number | null = null;
  while (!signal.aborted) {
    const execution = await source.get(id);
    const output = await source.output(id);
    for (const stream of STREAMS) {
      const { text, gap } = newText(sent[stream], output[stream]);
      if (output[stream] !== '') sent[stream] = output[stream];
      if (gap) yield { type: 'truncated', stream };
      if (text !== '') yield { type: stream, text };
    }
    if (isFinal(execution.status)) {
      settleReads ??= settlingReads(execution, now(), cancelSettleMs, pollMs);
      if (settleReads-- <= 0) {
        yield { type: 'end', status: execution.status, exitCode: execution.exitCode };
        return;
      }
    }
    try {
      await sleep(pollMs, undefined, { signal });
    } catch {
      return; // aborted
    }
  }
}

/** How many more reads to make of a final execution before its output is taken as complete. */
function settlingReads(execution: Execution, now: Date, settleMs: number, pollMs: number): number {
  const cancelledWhileRunning = execution.status === ExecutionStatus.CANCELLED && execution.startedAt !== null;
  const finishedAt = execution.finishedAt?.getTime() ?? 0;
  const left = finishedAt + settleMs - now.getTime();
  return cancelledWhileRunning && left > 0 ? Math.ceil(left / pollMs) : 0;
}
