import type { Channel, ChannelType } from '../domain/channel.js';
import type { AttemptOutcome, ClaimedDelivery } from '../domain/delivery.js';

/** Sends one attempt of a delivery over its channel; never throws: a failure is an outcome. */
export abstract class AlertSender {
  abstract send(channel: Channel, delivery: ClaimedDelivery, signal: AbortSignal): Promise<AttemptOutcome>;
}

/**
 * Checks an alert target's URL as written and as its name resolves now, and a Slack channel's
 * host; throws InvalidArgumentError naming `url`.
 */
export abstract class TargetPolicy {
  abstract check(url: string, type: ChannelType): Promise<void>;
}
