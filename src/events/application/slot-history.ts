import { OrbitEvent } from '../domain/orbit-event.js';

/** A slot event or a pause change, with what the timeline reads of it. */
export type RecordedEvent = Pick<OrbitEvent, 'type' | 'at' | 'slot' | 'detail'>;

/** What the events say about a job's slots: a read model of this module for the timeline. */
export abstract class SlotHistory {
  /** The job's slot events (slot.skipped, slot.missed, slot.late) about any of `slots`. */
  abstract aboutSlots(jobId: string, slots: readonly Date[]): Promise<RecordedEvent[]>;
  /** The job's latest slot.missed whose episode began before `instant` (it may reach past it), if any. */
  abstract missedBefore(jobId: string, instant: Date): Promise<RecordedEvent | null>;
  /**
   * The job's job.paused and job.resumed events in [from, to), oldest first, at most `limit`,
   * with the last one before `from` and the first one at or after `to` around them (what the
   * job was before and after the window).
   */
  abstract pauseChanges(jobId: string, from: Date, to: Date, limit: number): Promise<RecordedEvent[]>;
}
