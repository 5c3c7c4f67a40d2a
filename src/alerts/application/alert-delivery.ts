import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { BackgroundLoop } from '../../shared/application/background-loop.js';
import { Clock } from '../../shared/domain/clock.js';
import {
  ATTEMPT_ERRORS,
  ATTEMPT_TIMEOUT_MS,
  AttemptOutcome,
  ClaimedDelivery,
  retryDelayMs,
} from '../domain/delivery.js';
import { AlertSender } from './alert-sender.js';
import { ChannelRepository } from './channel.repository.js';
import { AttemptResult, DeliveryRepository } from './delivery.repository.js';

/** Deliveries one pass claims at most. */
const CLAIM_BATCH = 50;
/** How long a claim holds a delivery: past the attempt's timeout, so that only a dead node loses it. */
const CLAIM_LEASE_MS = 3 * ATTEMPT_TIMEOUT_MS;

/**
 * Sends due deliveries: any node may, each claims its own (SKIP LOCKED) and records every attempt.
 * Its loop passes when the consumer wrote deliveries, when the next attempt is due, and at least
 * every poll interval; stopping it aborts the sends in flight.
 */
@Injectable()
export class AlertDelivery {
  private readonly logger = new Logger(AlertDelivery.name);
  readonly loop: BackgroundLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly deliveries: DeliveryRepository,
    private readonly channels: ChannelRepository,
    private readonly sender: AlertSender,
  ) {
    this.loop = new BackgroundLoop(
      'Alert delivery pass',
      (signal) => this.pass(signal),
      { pollMs: config.pollIntervalMs },
      this.logger,
    );
  }

  /** One pass: claims what is due and sends it, all at once; answers when the next attempt is due. */
  async pass(signal: AbortSignal): Promise<Date | null> {
    for (;;) {
      const claimed = await this.deliveries.claimDue(this.clock.now(), CLAIM_LEASE_MS, CLAIM_BATCH);
      await Promise.all(claimed.map((delivery) => this.attempt(delivery, signal)));
      if (claimed.length < CLAIM_BATCH || signal.aborted) return this.deliveries.nextDue();
    }
  }

  /** Claims one pending delivery, due or not (a channel's test); null when another node has it. */
  claim(id: string): Promise<ClaimedDelivery | null> {
    return this.deliveries.claim(id, this.clock.now(), CLAIM_LEASE_MS);
  }

  /** Sends one claimed delivery now and records how it went. */
  async attempt(delivery: ClaimedDelivery, signal: AbortSignal): Promise<AttemptResult> {
    const channel = await this.channels.findById(delivery.channelId);
    const at = this.clock.now();
    const outcome: AttemptOutcome = channel
      ? await this.sender.send(channel, delivery, AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]))
      : { ok: false, httpStatus: null, smtpResponse: null, error: ATTEMPT_ERRORS.channelDeleted, latencyMs: 0 };
    const now = this.clock.now();
    const next = new Date(now.getTime() + retryDelayMs(delivery.attempt, this.config.alertRetryBaseMs, Math.random()));
    const result: AttemptResult = outcome.ok
      ? { status: 'DELIVERED', nextAttemptAt: null }
      : channel && next < delivery.giveUpAt
        ? { status: 'PENDING', nextAttemptAt: next }
        : { status: 'FAILED', nextAttemptAt: null };
    await this.deliveries.recordAttempt(delivery, at, outcome, result);
    if (result.status === 'FAILED') {
      this.logger.warn({
        deliveryId: delivery.id,
        channelId: delivery.channelId,
        msg: 'Alert delivery failed for good',
      });
    }
    return result;
  }
}
