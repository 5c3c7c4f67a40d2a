import { AppendedEvent, OrbitEvent } from '../domain/orbit-event.js';

/** Reads the stream of events, and appends what no row change records. Persistence port of the events module. */
export abstract class EventLog {
  /**
   * Up to `limit` events with a seq above `after`, in order. Never answers an event beyond a gap
   * in the sequence that a transaction still open may fill: a reader that moves its cursor to
   * the last event it got misses none and sees none twice. `teams`: only the events of the jobs
   * of those teams (a job's history is its team's), the gaps still those of the whole stream.
   */
  abstract readAfter(after: number, limit: number, teams?: readonly string[]): Promise<OrbitEvent[]>;
  /**
   * The seq of the newest event (0 when there is none), once the transactions writing events at
   * the call have ended (one of them may hold a smaller seq); at once when none is. When one is
   * still open after the wait for a gap, the seq before the first gap it may fill: a stream that
   * starts there misses none of the events that commit after the call.
   */
  abstract latestSeq(): Promise<number>;
  /**
   * As latestSeq, but null unless those transactions ended within the wait for a gap: every event
   * up to the answer is final, so a cursor moved there passes none that could still appear.
   */
  abstract settledSeq(): Promise<number | null>;
  /** Appends events, in the caller's transaction when there is one (so they commit with what decided them). */
  abstract append(events: AppendedEvent[]): Promise<void>;
}
