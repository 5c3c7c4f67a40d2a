import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventConsumers } from '../../events/application/event-consumers.js';
import { EventWakeups } from '../../events/application/event-wakeups.js';
import { AlertConsumer, ALERTS_CONSUMER } from './alert-consumer.js';
import { AlertDelivery } from './alert-delivery.js';
import { ChannelRepository } from './channel.repository.js';

/** Events the consumer handles per transaction. */
const CONSUME_BATCH = 500;
/**
 * After a short read the consumer waits this long before the next, so that a burst of runs is
 * handled in a few transactions instead of one per NOTIFY.
 */
const COALESCE_MS = 100;

/**
 * The alerts consumer (events → deliveries) and the delivery loop, on the `all` and `worker`
 * roles: the nodes that run Orbit's background work. Without any channel the consumer reads
 * nothing and opens no LISTEN connection: one look at `channels` per poll interval is the
 * whole cost of alerts then. `api` nodes stay request-only, as they
 * are for the scheduler and the reaper. The consumer's cursor lock makes the consumers of all
 * nodes take turns; deliveries are claimed row by row, so every node sends its share.
 */
@Injectable()
export class AlertLoops implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AlertLoops.name);
  private readonly stop = new AbortController();
  private loops: Promise<void>[] = [];
  private wakeDelivery: (() => void) | undefined;

  constructor(
    private readonly config: OrbitConfig,
    private readonly consumers: EventConsumers,
    private readonly wakeups: EventWakeups,
    private readonly consumer: AlertConsumer,
    private readonly delivery: AlertDelivery,
    private readonly channels: ChannelRepository,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    this.loops = [this.consumeLoop(), this.deliveryLoop()];
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    this.wakeDelivery?.();
    await Promise.all(this.loops);
  }

  private async consumeLoop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      let mark: number | null = null;
      let handled = 0;
      let wrote = false;
      try {
        // no channel, nothing to send: the stream is neither read nor listened to (a channel ignores what came before it)
        if (await this.channels.any()) {
          mark = this.wakeups.mark(); // before the read, so that no wake-up falls between the read and the wait
          handled = await this.consumers.consume(ALERTS_CONSUMER, CONSUME_BATCH, async (events) => {
            wrote = (await this.consumer.handle(events)) > 0;
          });
        }
        if (wrote) this.wakeDelivery?.(); // committed: this node sends them at once
      } catch (error) {
        this.logger.warn(`Alerts consumer pass failed: ${String(error)}`);
      }
      if (handled < CONSUME_BATCH) {
        if (mark !== null) await this.wakeups.waitAfter(mark, this.config.pollIntervalMs, signal);
        const pauseMs = mark !== null ? COALESCE_MS : this.config.pollIntervalMs;
        await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  private async deliveryLoop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      let next: Date | null = null;
      try {
        next = await this.delivery.pass(signal);
      } catch (error) {
        this.logger.warn(`Alert delivery pass failed: ${String(error)}`);
      }
      const pollMs = this.config.pollIntervalMs;
      const delay = next === null ? pollMs : Math.min(pollMs, Math.max(0, next.getTime() - Date.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delay);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wakeDelivery = done;
        if (signal.aborted) done();
      });
    }
  }
}
