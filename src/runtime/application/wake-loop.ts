import type { Logger } from '@nestjs/common';

export interface Wakeable {
  wake(): void;
}

/**
 * Runs `pass` whenever woken, one pass at a time; a wake during a pass runs another right
 * after. Between wakes it sleeps until the instant the pass returned (capped by the poll
 * interval, the fallback for lost notifications). A failed pass is retried after the poll.
 */
export class WakeLoop {
  stopping = false;
  /** When a pass last completed without error (Date.now()). */
  lastPassAt: number | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<Date | null>,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.wake();
  }

  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.runPasses().finally(() => (this.running = undefined));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
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
    if (this.stopping) return;
    const delay = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next.getTime() - Date.now()));
    this.timer = setTimeout(() => this.wake(), delay);
  }
}
