import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventConsumers } from '../../events/application/event-consumers.js';
import { EventWakeups } from '../../events/application/event-wakeups.js';
import { ChainConsumer, CHAINS_CONSUMER } from './chain-consumer.js';

/** Events handled per transaction. */
const CONSUME_BATCH = 500;
/** After a short read, so that a burst of outcomes is handled in a few transactions instead of one per NOTIFY. */
const COALESCE_MS = 100;

/**
 * The chains consumer of the event stream, on the nodes with the runtime. The cursor's lock
 * makes the consumers of all nodes take turns; a node that dies mid-batch leaves the cursor
 * where it was, and the next consumer handles the batch again (the unique chain key keeps
 * what already committed from doubling: nothing did, the runs commit with the cursor).
 */
@Injectable()
export class ChainLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ChainLoop.name);
  private readonly stop = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly config: OrbitConfig,
    private readonly consumers: EventConsumers,
    private readonly wakeups: EventWakeups,
    private readonly consumer: ChainConsumer,
  ) {}

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stop.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      const mark = this.wakeups.mark(); // before the read, so that no wake-up falls between the read and the wait
      let handled = 0;
      try {
        handled = await this.consumers.consume(CHAINS_CONSUMER, CONSUME_BATCH, async (events) => {
          await this.consumer.handle(events);
        });
      } catch (error) {
        this.logger.warn(`Chains consumer pass failed: ${String(error)}`);
      }
      if (handled < CONSUME_BATCH) {
        await this.wakeups.waitAfter(mark, this.config.pollIntervalMs, signal);
        await sleep(COALESCE_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
