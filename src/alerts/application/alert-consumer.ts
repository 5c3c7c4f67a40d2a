import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import type { AlertEvent } from '../../jobs/domain/job-alerts.js';
import { Clock } from '../../shared/domain/clock.js';
import { alertEventsOf, chosenEvent, failingAfter, jobEventsOf, mayAlert } from '../domain/alert-rules.js';
import { Channel } from '../domain/channel.js';
import { AlertPayloads, AlertToSay } from './alert-payloads.js';
import { ChannelRepository } from './channel.repository.js';
import { DeliveryRepository, NewDelivery } from './delivery.repository.js';

/** The consumer's name in event_cursors. */
export const ALERTS_CONSUMER = 'alerts';

/**
 * Turns a batch of stream events into deliveries, inside the consumer's transaction (see
 * EventConsumers): the rows commit with the cursor's move or not at all. A batch without a
 * final run outcome costs nothing; with no channel, one short read. A channel alerts on what
 * happened since it was made: while there is no channel the stream is not read, and the
 * first channel's consumer catches up from where it stopped without alerting on the past.
 */
@Injectable()
export class AlertConsumer {
  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly channels: ChannelRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly jobs: JobsService,
    private readonly payloads: AlertPayloads,
  ) {}

  /** Answers how many deliveries it wrote. */
  async handle(batch: readonly OrbitEvent[]): Promise<number> {
    const outcomes = batch.filter(mayAlert);
    if (outcomes.length === 0) return 0;
    const channels = await this.channels.all();
    if (channels.length === 0) return 0;
    const jobs = await this.jobs.alertsOf([...new Set(outcomes.map((event) => event.jobId))]);
    const forEveryJob = channels.some((channel) => jobEventsOf(channel.allJobsOn ?? []).length > 0);
    const alerting = outcomes.filter((event) => forEveryJob || (jobs.get(event.jobId)?.alerts.length ?? 0) > 0);
    if (alerting.length === 0) return 0;
    const failing = await this.deliveries.failingStates([...new Set(alerting.map((event) => event.jobId))]);
    const byName = new Map(channels.map((channel) => [channel.name, channel]));
    const now = this.clock.now();
    const giveUpAt = new Date(now.getTime() + this.config.alertRetryHours * 3_600_000);
    const pending: { delivery: Omit<NewDelivery, 'payload'>; say: AlertToSay }[] = [];
    for (const event of alerting) {
      const job = jobs.get(event.jobId);
      if (!job) continue; // deleted since: nobody to tell about it
      const wasFailing = failing.get(event.jobId) ?? false;
      failing.set(event.jobId, failingAfter(event, wasFailing));
      const candidates = alertEventsOf(event, wasFailing);
      for (const [channel, on] of subscriptions(channels, byName, job)) {
        if (event.at < channel.createdAt) continue; // the consumer may catch up on a stream older than the channel
        const alert = chosenEvent(candidates, on);
        if (alert === null) continue;
        pending.push({
          delivery: {
            id: randomUUID(),
            channelId: channel.id,
            eventSeq: event.seq,
            event: alert,
            jobId: event.jobId,
            executionId: event.executionId,
            createdAt: now,
            giveUpAt,
          },
          say: { alert, event, jobName: job.name },
        });
      }
    }
    const payloads = await this.payloads.forEvents(pending.map(({ say }) => say));
    const written: NewDelivery[] = pending.map(({ delivery }, i) => ({ ...delivery, payload: payloads[i]! }));
    await this.deliveries.saveFailingStates(failing, now);
    await this.deliveries.insertAll(written);
    return written.length;
  }
}

/**
 * Each channel that applies to a job, with the events it wants: its own for every job of its
 * team, and the job's rule for it. A channel of another team never applies: a team's channels
 * and deliveries tell of its own jobs only.
 */
function subscriptions(
  channels: readonly Channel[],
  byName: ReadonlyMap<string, Channel>,
  job: { team: string; alerts: readonly { channel: string; on: AlertEvent[] }[] },
): Map<Channel, AlertEvent[]> {
  const wanted = new Map<Channel, AlertEvent[]>();
  for (const channel of channels) {
    const own = jobEventsOf(channel.allJobsOn ?? []);
    if (own.length > 0 && channel.team === job.team) wanted.set(channel, own);
  }
  for (const rule of job.alerts) {
    const channel = byName.get(rule.channel);
    if (channel?.team === job.team) wanted.set(channel, [...(wanted.get(channel) ?? []), ...rule.on]);
  }
  return wanted;
}
