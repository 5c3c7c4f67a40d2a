import { OrbitEvent } from '../domain/orbit-event.js';
import { EventLog } from './event-log.js';
import { EventWakeups } from './event-wakeups.js';

export interface FollowOptions {
  /** Events per read. */
  batch: number;
  /** The fallback poll: a read even when no wake-up came. */
  pollMs: number;
  /** Stops following: the client went away. */
  signal: AbortSignal;
}

/**
 * Every event after `after`, in order, then each new one as it is written: a read after each
 * wake-up, and at least every `pollMs`. Ends quietly when `signal` aborts.
 */
export async function* followEvents(
  log: EventLog,
  wakeups: EventWakeups,
  after: number,
  options: FollowOptions,
): AsyncGenerator<OrbitEvent, void, undefined> {
  const { batch, pollMs, signal } = options;
  let cursor = after;
  while (!signal.aborted) {
    const mark = wakeups.mark();
    const events = await log.readAfter(cursor, batch);
    for (const event of events) {
      yield event;
      cursor = event.seq;
    }
    if (events.length < batch) await wakeups.waitAfter(mark, pollMs, signal);
  }
}
