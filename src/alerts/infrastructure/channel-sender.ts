import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { AlertSender } from '../application/alert-sender.js';
import type { Channel } from '../domain/channel.js';
import { ATTEMPT_ERRORS, AttemptOutcome, ClaimedDelivery } from '../domain/delivery.js';
import { emailOf, slackMessageOf } from './alert-messages.js';
import { postOnce } from './http-post.js';
import { SMTP_TLS_REQUIRED, smtpTransportOf } from './smtp-transport.js';

/**
 * Sends over each channel type: webhooks signed by the Standard Webhooks scheme (the id is the
 * delivery's, the same on every retry), Slack's incoming webhooks, email over ORBIT_SMTP_URL (its
 * credentials over TLS only: see smtpTransportOf).
 */
@Injectable()
export class ChannelSender extends AlertSender implements OnApplicationShutdown {
  private mailer: Transporter | undefined;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
  ) {
    super();
  }

  send(channel: Channel, delivery: ClaimedDelivery, signal: AbortSignal): Promise<AttemptOutcome> {
    const settings = channel.settings;
    const body = JSON.stringify(delivery.payload);
    switch (settings.type) {
      case 'webhook': {
        const id = `msg_${delivery.id}`;
        const at = this.clock.now();
        const headers: Record<string, string> = {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        };
        if (settings.secret !== null) headers['webhook-signature'] = new Webhook(settings.secret).sign(id, at, body);
        return postOnce(settings.url, headers, body, this.config.alertsAllowPrivate, signal);
      }
      case 'slack':
        return postOnce(
          settings.url,
          {},
          JSON.stringify(slackMessageOf(delivery.payload)),
          this.config.alertsAllowPrivate,
          signal,
        );
      case 'email':
        return this.mail(settings.to, delivery, signal);
    }
  }

  onApplicationShutdown(): void {
    this.mailer?.close();
  }

  private async mail(to: string[], delivery: ClaimedDelivery, signal: AbortSignal): Promise<AttemptOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    if (this.config.smtpUrl === undefined) {
      return { ok: false, httpStatus: null, smtpResponse: null, error: ATTEMPT_ERRORS.noSmtp, latencyMs: 0 };
    }
    const transport = smtpTransportOf(this.config.smtpUrl);
    this.mailer ??= createTransport(transport.url);
    const { subject, text } = emailOf(delivery.payload);
    try {
      // the signal ends the send itself: nodemailer closes the connection, which the timeouts
      // of smtpTransportOf bound step by step as well (connect, greeting, each answer)
      const info = (await this.mailer.sendMail({ from: this.config.smtpFrom, to, subject, text, signal })) as {
        response?: string;
      };
      return { ok: true, httpStatus: null, smtpResponse: info.response ?? null, error: null, latencyMs: latency() };
    } catch (error) {
      const { response, code } = error as { response?: string; code?: string };
      // nodemailer's messages name the server, never its credentials
      const said = error instanceof Error ? error.message : String(error);
      const message = signal.aborted
        ? ATTEMPT_ERRORS.timeout
        : transport.tlsRequired && code === 'ETLS'
          ? `${SMTP_TLS_REQUIRED}: ${said}`
          : said;
      return { ok: false, httpStatus: null, smtpResponse: response ?? null, error: message, latencyMs: latency() };
    }
  }
}
