import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventConsumerLoop } from '../../events/application/event-consumer-loop.js';
import { EventConsumers } from '../../events/application/event-consumers.js';
import { EventWakeups } from '../../events/application/event-wakeups.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { ChainConsumer, CHAINS_CONSUMER } from './chain-consumer.js';

/**
 * The chains consumer of the event stream, on the nodes with the runtime. The cursor's lock
 * makes the consumers of all nodes take turns; a node that dies mid-batch leaves the cursor
 * where it was, and the next consumer handles the batch again (the unique chain key keeps
 * what already committed from doubling: nothing did, the runs commit with the cursor). While no
 * job has a trigger it reads no event: it reads the stream's head once per poll interval and
 * skips there (see EventConsumerLoop), so a first trigger is not fired by outcomes from before it
 * was set.
 */
@Injectable()
export class ChainLoop extends EventConsumerLoop {
  constructor(
    config: OrbitConfig,
    consumers: EventConsumers,
    wakeups: EventWakeups,
    consumer: ChainConsumer,
    jobs: JobsService,
  ) {
    super(consumers, wakeups, {
      consumer: CHAINS_CONSUMER,
      label: 'Chains consumer pass',
      handle: (events) => consumer.handle(events),
      idle: async () => !(await jobs.anyTriggered()),
      pollMs: config.pollIntervalMs,
      logger: new Logger(ChainLoop.name),
    });
  }
}
