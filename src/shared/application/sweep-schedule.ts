/** The first sweep runs this soon after start (or after one interval, if that is shorter). */
const FIRST_SWEEP_DELAY_MS = 5_000;

/**
 * Runs a retention sweep every interval, the first one soon after start; never two at once. At
 * shutdown it starts no more and waits for the one in flight, which reads `stopping` between its
 * batches to end early.
 */
export class SweepSchedule {
  private firstTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly what: string,
    private readonly sweep: () => Promise<unknown>,
    private readonly logger: { warn(message: string): void },
  ) {}

  get stopping(): boolean {
    return this.stopped;
  }

  start(everyMs: number): void {
    this.firstTimer = setTimeout(() => this.tick(), Math.min(FIRST_SWEEP_DELAY_MS, everyMs));
    this.timer = setInterval(() => this.tick(), everyMs);
    this.firstTimer.unref();
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.firstTimer);
    clearInterval(this.timer);
    await this.sweeping;
  }

  private tick(): void {
    if (this.sweeping || this.stopped) return;
    this.sweeping = this.sweep()
      .catch((error: unknown) => this.logger.warn(`${this.what} failed: ${String(error)}`))
      .finally(() => {
        this.sweeping = undefined;
      });
  }
}
