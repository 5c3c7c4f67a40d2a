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
  /** The events of each read to yield (the others are passed over): a follower kept to some teams. */
  keep?: (events: OrbitEvent[]) => Promise<OrbitEvent[]>;
}

/**
 * Every event after `after`, in order, then each new one as it is written: a read after each
 * wake-up, and at least every `pollMs`. Ends quietly when `signal` aborts. With `keep`, the
 * cursor still moves past the events it passes over, which are not read again.
 */
export async function* followEvents(
  log: EventLog,
  wakeups: EventWakeups,
  after: number,
  options: FollowOptions,
): AsyncGenerator<OrbitEvent, void, undefined> {
  const { batch, pollMs, signal, keep } = options;
  let cursor = after;
  while (!signal.aborted) {
    const mark = wakeups.mark();
    const events = await log.readAfter(cursor, batch);
    const kept = keep && events.length > 0 ? await keep(events) : events;
    for (const event of kept) yield event;
    cursor = events[events.length - 1]?.seq ?? cursor;
    if (events.length < batch) await wakeups.waitAfter(mark, pollMs, signal);
  }
}
