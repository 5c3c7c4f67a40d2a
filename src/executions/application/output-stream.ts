import { Execution } from '../domain/execution.js';
import { ExecutionStatus, isFinal } from '../domain/execution-status.js';
import { newText } from '../../shared/domain/text-tail.js';
import { OutputSnapshot } from './output-polls.js';

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

export interface FollowOptions {
  /** Between two reads of the stored output: how many reads a settling cancellation takes. */
  pollMs: number;
  /** The clock's now: a run cancelled only moments ago may still get its last output stored. */
  now: () => Date;
  /**
   * How long after a cancellation of a running command its output may still arrive: the worker
   * stores the last output once the killed command has exited. Default 3 s.
   */
  cancelSettleMs?: number;
}

/**
 * Follows the stored output of an execution, read after read, until it is final: yields the text
 * each stream printed since the last read, then `end`. Each read has the status before the
 * output, so for an execution that SUCCEEDED or FAILED the last read has its complete output (the
 * worker stores both in one transaction). Ends quietly, without `end`, when the reads end (the
 * client went away).
 */
export async function* followOutput(
  reads: AsyncIterable<OutputSnapshot>,
  options: FollowOptions,
): AsyncGenerator<OutputEvent, void, undefined> {
  const { pollMs, now } = options;
  const cancelSettleMs = options.cancelSettleMs ?? 3_000;
  const sent: Record<OutputStreamName, string> = { stdout: '', stderr: '' };
  let settleReads: number | null = null;
  for await (const { execution, output } of reads) {
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
  }
}

/** How many more reads to make of a final execution before its output is taken as complete. */
function settlingReads(execution: Execution, now: Date, settleMs: number, pollMs: number): number {
  const cancelledWhileRunning = execution.status === ExecutionStatus.CANCELLED && execution.startedAt !== null;
  const finishedAt = execution.finishedAt?.getTime() ?? 0;
  const left = finishedAt + settleMs - now.getTime();
  return cancelledWhileRunning && left > 0 ? Math.ceil(left / pollMs) : 0;
}
