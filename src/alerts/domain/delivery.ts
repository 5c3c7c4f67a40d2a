import type { AlertEvent } from '../../jobs/domain/job-alerts.js';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a delivery is sent for: an alert event, or a channel's test. */
export type DeliveryEvent = AlertEvent | 'test';

/** How long one attempt may take, connection to answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The longest pause between two attempts. */
const MAX_RETRY_DELAY_MS = 3_600_000;

/** What one attempt to send got: an HTTP status or an SMTP answer, or the error that stopped it. */
export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  smtpResponse: string | null;
  error: string | null;
  latencyMs: number;
}

export interface DeliveryAttempt extends AttemptOutcome {
  attempt: number;
  at: Date;
}

/** A delivery claimed to be sent: what the sender needs. */
export interface ClaimedDelivery {
  id: string;
  channelId: string;
  event: DeliveryEvent;
  payload: AlertPayload;
  /** This attempt's number, from 1. */
  attempt: number;
  giveUpAt: Date;
}

/** The JSON body of an alert: what every channel type renders its message from. */
export interface AlertPayload {
  event: DeliveryEvent;
  /** The node's time when the delivery was made. */
  timestamp: string;
  job: { id: string; name: string } | null;
  /** The schedule slot of a slot event (late, missed); else null. */
  slot: string | null;
  /** The run the alert is about; on a slot event, the run that was active when FORBID skipped it, else null. */
  run: AlertRun | null;
  links: { dashboard: string; job: string | null; run: string | null };
}

export interface AlertRun {
  id: string;
  status: string;
  attempt: number;
  trigger: string;
  scheduledFor: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  exitCode: number | null;
  errorMessage: string | null;
  /** The last 2 KiB of what the run printed (stdout, then stderr). */
  output: string;
}

/**
 * The pause after failed attempt `attempt` (from 1): `baseMs` doubled per attempt, at most an
 * hour, then a random part of its second half taken off ("equal jitter"), so that the
 * deliveries of one outage do not all come back at the same instant. `random` is in [0, 1).
 */
export function retryDelayMs(attempt: number, baseMs: number, random: number): number {
  const full = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(full / 2 + (full / 2) * random);
}
