import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

export const RUN_REQUEST_LIMITS = {
  /** How far ahead a run may be queued with `runAt`. */
  runAtMaxAheadMs: 365 * 24 * 3_600_000,
  /** Slots one backfill may queue. */
  backfillMaxSlots: 1000,
  /**
   * How far a refused backfill counts its slots, to tell how many it had: croner's zone
   * arithmetic costs up to a millisecond per slot on a busy machine, so a count stops here.
   */
  backfillCountLimit: 5000,
} as const;

/** When a run asked for at `runAt` is due: not in the past, at most a year ahead. */
export function runAtOf(runAt: Date, now: Date): Date {
  if (runAt.getTime() < now.getTime()) {
    throw new InvalidArgumentError(`runAt ${runAt.toISOString()} is in the past`, 'runAt');
  }
  if (runAt.getTime() - now.getTime() > RUN_REQUEST_LIMITS.runAtMaxAheadMs) {
    throw new InvalidArgumentError(`runAt ${runAt.toISOString()} is more than a year ahead`, 'runAt');
  }
  return runAt;
}

/** A backfill's window [from, to): not empty, and over by now (the schedule fires the slots still to come). */
export function checkBackfillWindow(from: Date, to: Date, now: Date): void {
  if (to.getTime() <= from.getTime()) throw new InvalidArgumentError('to must be after from', 'to');
  if (to.getTime() > now.getTime()) {
    throw new InvalidArgumentError(
      `to ${to.toISOString()} is in the future: the schedule fires the slots still to come`,
      'to',
    );
  }
}

/** A backfill of `count` slots (counted up to the count limit), or a 400 that says how many there are. */
export function checkBackfillSize(count: number): void {
  const { backfillMaxSlots: max, backfillCountLimit: limit } = RUN_REQUEST_LIMITS;
  if (count > max) {
    const many = count > limit ? `more than ${limit}` : String(count);
    throw new InvalidArgumentError(
      `The window holds ${many} slots of the job; a backfill queues at most ${max}: split it`,
      'to',
    );
  }
}
