import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { RetentionAlarm, RetentionAlarmSender } from '../../executions/application/retention-alarms.js';
import { Clock } from '../../shared/domain/clock.js';
import { AlertPayloads } from './alert-payloads.js';
import { ChannelRepository } from './channel.repository.js';
import { DeliveryRepository } from './delivery.repository.js';

/**
 * Retention's alarms as deliveries: one to each channel whose `allJobs.on` names the event, with
 * no job, no run and no stream event, written in the transaction of the health change that gave
 * it (the delivery loop sends it within a poll interval, retried like any other).
 */
@Injectable()
export class RetentionAlerts extends RetentionAlarmSender {
  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly channels: ChannelRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly payloads: AlertPayloads,
  ) {
    super();
  }

  async raise(alarm: RetentionAlarm): Promise<void> {
    const subscribed = (await this.channels.all()).filter((channel) => channel.allJobsOn?.includes(alarm.event));
    if (subscribed.length === 0) return;
    const now = this.clock.now();
    const giveUpAt = new Date(now.getTime() + this.config.alertRetryHours * 3_600_000);
    const payload = this.payloads.forRetention(alarm);
    await this.deliveries.insertAll(
      subscribed.map((channel) => ({
        id: randomUUID(),
        channelId: channel.id,
        eventSeq: null,
        event: alarm.event,
        jobId: null,
        executionId: null,
        payload,
        createdAt: now,
        giveUpAt,
      })),
    );
  }
}
