import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventConsumerLoop } from '../../events/application/event-consumer-loop.js';
import { EventConsumers } from '../../events/application/event-consumers.js';
import { EventWakeups } from '../../events/application/event-wakeups.js';
import { AlertConsumer, ALERTS_CONSUMER } from './alert-consumer.js';
import { AlertDelivery } from './alert-delivery.js';
import { ChannelRepository } from './channel.repository.js';

/**
 * The alerts consumer of the event stream (events → deliveries), on the nodes that run Orbit's
 * background work. Without any channel it reads no event and opens no LISTEN connection: it
 * reads the stream's head once per poll interval and skips there (see EventConsumerLoop), so a
 * first channel starts from the present (a channel ignores what came before it, too). The cursor
 * lock makes the consumers of all nodes take turns; what a batch wrote this node sends at once,
 * once it committed.
 */
@Injectable()
export class AlertConsumerLoop extends EventConsumerLoop {
  constructor(
    config: OrbitConfig,
    consumers: EventConsumers,
    wakeups: EventWakeups,
    consumer: AlertConsumer,
    delivery: AlertDelivery,
    channels: ChannelRepository,
  ) {
    super(consumers, wakeups, {
      consumer: ALERTS_CONSUMER,
      label: 'Alerts consumer pass',
      handle: (events) => consumer.handle(events),
      committed: () => delivery.loop.wake(),
      idle: async () => !(await channels.any()),
      pollMs: config.pollIntervalMs,
      logger: new Logger(AlertConsumerLoop.name),
    });
  }
}
