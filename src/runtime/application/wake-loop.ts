import type { Logger } from '@nestjs/common';

export interface Wakeable {
  wake(): void;
}

/**
 * Runs `pass` whenever woken, one pass at a time: a wake during a pass runs another right after.
 * A wake that may not wait (`beside`) starts a pass beside the running one instead, up to
 * `lanes` at once, so a pass waiting on the database does not hold it back. Between wakes it
 * sleeps until the instant the last pass returned (capped by the poll interval, the fallback
 * for lost notifications). A failed pass is retried after the poll.
 */
export class WakeLoop {
  stopping = false;
  /** When a pass last completed without error (Date.now()). */
  lastPassAt: number | undefined;
  private readonly running = new Set<Promise<void>>();
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<Date | null>,
    private readonly pollMs: number,
    private readonly logger: Logger,
    private readonly lanes = 1,
  ) {}

  start(): void {
    this.wake();
  }

  wake(beside = false): void {
    if (this.stopping) return;
    if (this.running.size >= (beside ? this.lanes : 1)) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    const lane: Promise<void> = this.runPasses().finally(() => this.running.delete(lane));
    this.running.add(lane);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private async runPasses(): Promise<void> {
    let next: Date | null;
    do {
      this.again = false;
      try {
        next = await this.pass();
        this.lastPassAt = Date.now();
      } catch (error) {
        this.logger.warn(`${this.name} pass failed: ${String(error)}`);
        next = null;
      }
    } while (this.again && !this.stopping);
    // another lane still busy sets the timer when it is done, from what it saw last
    if (this.stopping || this.running.size > 1) return;
    const delay = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next.getTime() - Date.now()));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delay);
  }
}
