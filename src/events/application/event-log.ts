import { OrbitEvent } from '../domain/orbit-event.js';

/** Reads the stream of events. Persistence port of the events module. */
export abstract class EventLog {
  /**
   * Up to `limit` events with a seq above `after`, in order. Never answers an event beyond a gap
   * in the sequence that a transaction still open may fill: a reader that moves its cursor to
   * the last event it got misses none and sees none twice.
   */
  abstract readAfter(after: number, limit: number): Promise<OrbitEvent[]>;
  /** The seq of the newest event (0 when there is none), once the transactions open at the call have ended. */
  abstract latestSeq(): Promise<number>;
}
