import type { ChannelAlertEvent } from '../../jobs/domain/job-alerts.js';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a delivery is sent for: an alert event (a job's or the cluster's), or a channel's test. */
export type DeliveryEvent = ChannelAlertEvent | 'test';

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

/** Why an attempt failed, in Orbit's own words: they tell nothing of the target. */
export const ATTEMPT_ERRORS = {
  timeout: 'no answer within the attempt timeout',
  stopped: 'stopped: the node is shutting down',
  channelDeleted: 'the channel was deleted',
  noSmtp: 'ORBIT_SMTP_URL is not set',
} as const;
const OWN_WORDS: ReadonlySet<string> = new Set(Object.values(ATTEMPT_ERRORS));

/** What a failure without a status says below admin. */
export const DETAILS_FOR_ADMINS = 'failed (the details are for admins)';

/**
 * An attempt as the roles below admin see it: the HTTP status or the SMTP reply code, and
 * Orbit's own words, never the target's answer nor an error's text, which quote what the
 * target said and name the addresses it resolved to (a server-side read-back otherwise).
 */
export function statusOnly(attempt: DeliveryAttempt): DeliveryAttempt {
  const code = /^\d{3}/.exec(attempt.smtpResponse ?? '')?.[0] ?? null;
  const error =
    attempt.error === null || OWN_WORDS.has(attempt.error)
      ? attempt.error
      : attempt.httpStatus !== null
        ? `HTTP ${attempt.httpStatus}`
        : code !== null
          ? `SMTP ${code}`
          : DETAILS_FOR_ADMINS;
  return { ...attempt, smtpResponse: code, error };
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
  /** Only on the cluster's retention events: what retention's health became, and what to do. */
  retention?: AlertRetention;
}

/** What a retention alert says; times are ISO instants. */
export interface AlertRetention {
  /** When the pass that changed the health ended (the node's clock). */
  passEndedAt: string;
  /** While passes fail: the last failed pass's error. */
  error: string | null;
  /** When the first failed pass of the current streak ended; null once retention is neither failing nor behind. */
  failingSince: string | null;
  /** When the cluster's last successful pass ended; null before the first. */
  lastSuccessAt: string | null;
  /** The finish time of the oldest run the last successful pass should have deleted and left stored; null when none. */
  oldestOverdueFinishedAt: string | null;
  /** How long past its deletion time that run was when the pass ended; 0 when none. */
  behindSeconds: number;
  /** The settings in force on the node that alerted. */
  rule: { days: number; keepPerJob: number; intervalSeconds: number };
  /** What an operator should do about it. */
  todo: string;
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
