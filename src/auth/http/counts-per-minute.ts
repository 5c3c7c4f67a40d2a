const MINUTE_MS = 60_000;

/**
 * Counts per key within the calendar minute: every count drops when the minute turns, so the
 * map holds at most one minute's keys.
 */
export class CountsPerMinute {
  private minute = 0;
  private counts = new Map<string, number>();

  /** Adds one to `key`'s count and answers the new count. */
  add(key: string, nowMs: number): number {
    const count = this.of(key, nowMs) + 1;
    this.counts.set(key, count);
    return count;
  }

  of(key: string, nowMs: number): number {
    const minute = Math.floor(nowMs / MINUTE_MS);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts = new Map();
    }
    return this.counts.get(key) ?? 0;
  }

  /** Whole seconds until the minute turns (at least 1): what Retry-After says. */
  static secondsLeft(nowMs: number): number {
    return Math.max(1, Math.ceil((MINUTE_MS - (nowMs % MINUTE_MS)) / 1000));
  }
}
