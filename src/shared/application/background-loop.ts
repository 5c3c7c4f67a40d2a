/** What a loop logs with: a failed pass is a warning, and the loop goes on. */
export interface LoopLogger {
  warn(message: string): void;
}

/** A retention sweep's first pass comes this soon after start (or after one interval, if that is shorter). */
export const FIRST_SWEEP_AFTER_MS = 5_000;

export interface Wakeable {
  wake(): void;
}

/** Work a node runs in the background, from start to a drained stop. */
export interface BackgroundService {
  start(): void | Promise<void>;
  /** Starts no more passes; resolves once the passes in flight ended. */
  stop(): Promise<void>;
  /** When a pass last completed without error (Date.now()); undefined before the first. */
  lastPassAt(): number | undefined;
}

/**
 * When passes run.
 * - `everyMs`: on a fixed beat, the first `firstAfterMs` after start when that is sooner; a beat
 *   that falls during a pass is skipped.
 * - otherwise when woken, or at the instant the last pass answered (capped by `pollMs`, the
 *   fallback for lost wake-ups; without it, only the answer or a wake starts a pass). A failed
 *   pass is retried after the poll. `lanes` lets a wake that may not wait start a pass beside
 *   the running one, so a pass waiting on the database does not hold it back.
 */
export type Cadence = { everyMs: number; firstAfterMs?: number } | { pollMs?: number; lanes?: number };

/** One pass; `signal` aborts when the loop stops. A woken pass may answer a Date: when it is next due. */
export type Pass = (signal: AbortSignal) => Promise<unknown>;

/**
 * A pass at a time (or up to the cadence's lanes), between `start` and `stop`; `stop` starts no
 * more and waits for the passes in flight, whose signal it aborts so that long ones end early.
 * A failed pass is logged as `<name> failed: <error>`, and the loop goes on.
 */
export class BackgroundLoop implements BackgroundService, Wakeable {
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private started = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private beat: NodeJS.Timeout | undefined;
  private lastPass: number | undefined;

  constructor(
    private readonly name: string,
    private readonly pass: Pass,
    private readonly cadence: Cadence,
    private readonly logger: LoopLogger,
  ) {}

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  lastPassAt(): number | undefined {
    return this.lastPass;
  }

  start(): void {
    this.started = true;
    if (!('everyMs' in this.cadence)) return this.wake();
    const { everyMs, firstAfterMs } = this.cadence;
    if (firstAfterMs !== undefined && firstAfterMs < everyMs) {
      this.timer = setTimeout(() => this.tick(), firstAfterMs).unref();
    }
    this.beat = setInterval(() => this.tick(), everyMs).unref();
  }

  /** A pass now (on a beat: unless one runs); `beside`: in another lane, when the cadence has one free. */
  wake(beside = false): void {
    if (!this.started || this.stopping) return;
    if ('everyMs' in this.cadence) return this.tick();
    if (this.running.size >= (beside ? (this.cadence.lanes ?? 1) : 1)) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.track(this.wokenPasses());
  }

  async stop(): Promise<void> {
    this.abort.abort();
    clearTimeout(this.timer);
    clearInterval(this.beat);
    await this.idle();
  }

  /** Resolves once no pass is in flight, the passes those started included. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private tick(): void {
    if (this.running.size > 0 || this.stopping) return;
    this.track(this.passOnce().then(() => undefined));
  }

  private track(lane: Promise<void>): void {
    const tracked: Promise<void> = lane.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** Runs the pass; answers what it answered, or null when it failed. */
  private async passOnce(): Promise<Date | null> {
    try {
      const next = await this.pass(this.abort.signal);
      this.lastPass = Date.now();
      return next instanceof Date ? next : null;
    } catch (error) {
      this.logger.warn(`${this.name} failed: ${String(error)}`);
      return null;
    }
  }

  private async wokenPasses(): Promise<void> {
    let next: Date | null;
    do {
      this.again = false;
      next = await this.passOnce();
    } while (this.again && !this.stopping);
    // another lane still busy sets the timer when it is done, from what it saw last
    if (this.stopping || this.running.size > 1) return;
    const pollMs = 'pollMs' in this.cadence ? this.cadence.pollMs : undefined;
    const untilNext = next === null ? undefined : Math.max(0, next.getTime() - Date.now());
    const delay = pollMs === undefined ? untilNext : Math.min(pollMs, untilNext ?? pollMs);
    clearTimeout(this.timer);
    if (delay !== undefined) this.timer = setTimeout(() => this.wake(), delay);
  }
}
