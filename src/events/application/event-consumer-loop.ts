import { setTimeout as sleep } from 'node:timers/promises';
import { BackgroundLoop, BackgroundService, LoopLogger } from '../../shared/application/background-loop.js';
import type { OrbitEvent } from '../domain/orbit-event.js';
import { EventConsumers } from './event-consumers.js';
import { EventWakeups } from './event-wakeups.js';

/** Events handled per transaction. */
const CONSUME_BATCH = 500;
/** After a short read, so that a burst of events is handled in a few transactions instead of one per NOTIFY. */
const COALESCE_MS = 100;
/** How often an idle consumer writes the head it may skip to (it keeps it in memory meanwhile). */
const IDLE_SKIP_EVERY_MS = 60_000;
/** A pass's answer after a full batch: the next one is due already. */
const AT_ONCE = new Date(0);

export interface EventConsumerLoopOptions {
  /** The consumer's cursor (event_cursors.consumer). */
  consumer: string;
  /** What a failed pass is logged as (`<label> failed: …`). */
  label: string;
  /** Handles a batch in the consumer's transaction; answers how many rows it wrote. */
  handle: (events: readonly OrbitEvent[]) => Promise<number>;
  /** Once a batch that wrote rows committed. */
  committed?: () => void;
  /**
   * true: the consumer has nothing to handle now. The pass then reads no event and the stream is
   * not listened to until the next poll; the head the consumer may skip to is read instead
   * (EventConsumers.idleHead, which checks again in its transaction, so the check must take a lock
   * that whatever makes the consumer busy takes too). The cursor moves there once a minute, and at
   * once when the consumer turns busy.
   */
  idle?: () => Promise<boolean>;
  pollMs: number;
  logger: LoopLogger;
}

/**
 * A consumer of the event stream inside Orbit, on a background loop: a full batch is followed at
 * once; after a short one it waits for the first wake-up after its read (or the poll), then a
 * little more, so that a burst is handled in few transactions. The cursor's lock makes the
 * consumers of all nodes take turns (see EventConsumers).
 */
export class EventConsumerLoop implements BackgroundService {
  private readonly loop: BackgroundLoop;
  /** Where the cursor may skip to, found while idle and not written yet. */
  private idleHead: number | null = null;
  private skippedAt = 0;

  constructor(
    private readonly consumers: EventConsumers,
    private readonly wakeups: EventWakeups,
    private readonly options: EventConsumerLoopOptions,
  ) {
    // no poll of its own: every pass that does not follow at once arms the wake-up of the next
    this.loop = new BackgroundLoop(options.label, (signal) => this.pass(signal), {}, options.logger);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  lastPassAt(): number | undefined {
    return this.loop.lastPassAt();
  }

  /** Answers AT_ONCE after a full batch; otherwise nothing, and the rest it armed wakes the loop. */
  private async pass(signal: AbortSignal): Promise<Date | null> {
    let mark: number | null = null;
    let handled = 0;
    try {
      if (!(await this.idlePass())) {
        mark = this.wakeups.mark(); // before the read, so that no wake-up falls between the read and the wait
        let wrote = 0;
        handled = await this.consumers.consume(this.options.consumer, CONSUME_BATCH, async (events) => {
          wrote = await this.options.handle(events);
        });
        if (wrote > 0) this.options.committed?.();
      }
    } finally {
      if (handled < CONSUME_BATCH) this.rest(mark, signal);
    }
    return handled < CONSUME_BATCH ? null : AT_ONCE;
  }

  /**
   * Answers true when the consumer is idle: it keeps the head it may skip to, written once a
   * minute. A consumer turning busy first skips there, then reads. The first check is outside a
   * transaction, so that a busy consumer's pass opens one only.
   */
  private async idlePass(): Promise<boolean> {
    const { idle, consumer } = this.options;
    if (idle && (await idle())) {
      const seen = await this.consumers.idleHead(consumer, idle);
      if (seen.idle) {
        this.idleHead = seen.head ?? this.idleHead;
        if (Date.now() - this.skippedAt >= IDLE_SKIP_EVERY_MS) await this.skipIdle();
        return true;
      }
    }
    await this.skipIdle();
    return false;
  }

  private async skipIdle(): Promise<void> {
    if (this.idleHead === null) return;
    await this.consumers.skipTo(this.options.consumer, this.idleHead);
    this.idleHead = null;
    this.skippedAt = Date.now();
  }

  private rest(mark: number | null, signal: AbortSignal): void {
    const { pollMs } = this.options;
    const waited =
      mark === null
        ? sleep(pollMs, undefined, { signal })
        : this.wakeups.waitAfter(mark, pollMs, signal).then(() => sleep(COALESCE_MS, undefined, { signal }));
    void waited.catch(() => undefined).then(() => this.loop.wake());
  }
}
