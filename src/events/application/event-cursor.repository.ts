/** Where each consumer inside Orbit stands in the stream. Persistence port of the events module. */
export abstract class EventCursorRepository {
  /**
   * The seq a consumer handled last (0 for a new one, which starts at the oldest event kept),
   * locked until the caller's transaction ends: another process consuming as the same consumer waits.
   */
  abstract lock(consumer: string, now: Date): Promise<number>;
  /** Moves a locked cursor on. */
  abstract move(consumer: string, after: number, now: Date): Promise<void>;
}
