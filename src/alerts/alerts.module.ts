import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { RetentionAlarms } from '../executions/application/retention-alarms.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { JobAlertChannels } from '../jobs/application/job-alert-channels.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { AlertConsumer } from './application/alert-consumer.js';
import { AlertConsumerLoop } from './application/alert-consumer-loop.js';
import { AlertDelivery } from './application/alert-delivery.js';
import { AlertPayloads } from './application/alert-payloads.js';
import { AlertRetention } from './application/alert-retention.js';
import { AlertSender, TargetPolicy } from './application/alert-sender.js';
import { ChannelRepository } from './application/channel.repository.js';
import { ChannelsService } from './application/channels.service.js';
import { DeliveryRepository } from './application/delivery.repository.js';
import { RetentionAlerts } from './application/retention-alerts.js';
import { ChannelsController } from './http/channels.controller.js';
import { DeliveriesController } from './http/deliveries.controller.js';
import { ChannelSender } from './infrastructure/channel-sender.js';
import { DnsTargetPolicy } from './infrastructure/dns-target-policy.js';
import { SqlChannelRepository } from './infrastructure/sql-channel.repository.js';
import { SqlDeliveryRepository } from './infrastructure/sql-delivery.repository.js';

/** Channels, the alerts consumer of the event stream, and the deliveries (sent on the roles background-work.ts names). */
@Module({
  imports: [JobsModule, ExecutionsModule, EventsModule],
  controllers: [ChannelsController, DeliveriesController],
  providers: [
    ChannelsService,
    AlertConsumer,
    AlertConsumerLoop,
    AlertDelivery,
    AlertPayloads,
    AlertRetention,
    RetentionAlerts,
    { provide: ChannelRepository, useClass: SqlChannelRepository },
    { provide: DeliveryRepository, useClass: SqlDeliveryRepository },
    { provide: AlertSender, useClass: ChannelSender },
    { provide: TargetPolicy, useClass: DnsTargetPolicy },
  ],
  exports: [ChannelsService],
})
export class AlertsModule {
  /** The jobs module checks the channels its jobs name through this module's directory; retention raises its alarms here. */
  constructor(
    alertChannels: JobAlertChannels,
    channels: ChannelsService,
    retentionAlarms: RetentionAlarms,
    retentionAlerts: RetentionAlerts,
  ) {
    alertChannels.bind(channels);
    retentionAlarms.bind(retentionAlerts);
  }
}
