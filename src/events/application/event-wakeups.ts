/** Tells followers that events may have been written (a NOTIFY, or a LISTEN connection that came back). */
export abstract class EventWakeups {
  /** A mark of the wake-ups so far: take it before reading, so that none falls between the read and the wait. */
  abstract mark(): number;
  /** Resolves at the first wake-up after `mark` (at once if one came already), after `timeoutMs`, or on abort. */
  abstract waitAfter(mark: number, timeoutMs: number, signal: AbortSignal): Promise<void>;
}
