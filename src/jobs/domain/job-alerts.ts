import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

/**
 * What an alert may be sent on: a run's final outcomes and failed attempts, a slot that had no
 * run started `lateAfterSeconds` after it (`late`), a run past `maxDurationSeconds`
 * (`long_running`), and a slot missed while no scheduler ran or skipped by FORBID (`missed`).
 */
export const ALERT_EVENTS = [
  'failed',
  'attempt_failed',
  'recovered',
  'succeeded',
  'worker_lost',
  'late',
  'long_running',
  'missed',
] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/**
 * What retention's health gives, which is the cluster's and no job's (docs/operating.md,
 * Retention): passes started failing, a successful one left runs it should have deleted long
 * ago, or both are over. Only a channel's `allJobs.on` may name them.
 */
export const CLUSTER_ALERT_EVENTS = ['retention_failed', 'retention_behind', 'retention_recovered'] as const;
export type ClusterAlertEvent = (typeof CLUSTER_ALERT_EVENTS)[number];

/** What a channel's `allJobs.on` may hold: every job's events and the cluster's. */
export const CHANNEL_ALERT_EVENTS = [...ALERT_EVENTS, ...CLUSTER_ALERT_EVENTS] as const;
export type ChannelAlertEvent = (typeof CHANNEL_ALERT_EVENTS)[number];

/** A rule without `on` alerts on failures for good only. */
export const DEFAULT_ALERT_ON: readonly AlertEvent[] = ['failed'];

export const ALERT_LIMITS = { rulesPerJob: 20, channelNameMaxLength: 200 } as const;

/** One of a job's alert rules: send to the channel named `channel` on the events `on`. */
export interface JobAlert {
  channel: string;
  on: AlertEvent[];
}

/** A rule as a caller writes it: `on` may be left to its default. */
export type JobAlertInput = Pick<JobAlert, 'channel'> & Partial<Pick<JobAlert, 'on'>>;

/** The events of a job rule's `on` (its default when absent), each once, or a 400 naming `field`. */
export function alertEventsOf(value: unknown, field: string): AlertEvent[] {
  const cluster = Array.isArray(value)
    ? CLUSTER_ALERT_EVENTS.find((event) => (value as unknown[]).includes(event))
    : undefined;
  if (cluster !== undefined) {
    throw new InvalidArgumentError(
      `${field}: ${cluster} is about the whole cluster, not a job: name it in a channel's allJobs.on`,
      field,
    );
  }
  return eventsOf(value, field, ALERT_EVENTS);
}

/** The events of a channel's `allJobs.on` (its default when absent), each once, or a 400 naming `field`. */
export function channelEventsOf(value: unknown, field: string): ChannelAlertEvent[] {
  return eventsOf(value, field, CHANNEL_ALERT_EVENTS);
}

function eventsOf<E extends string>(value: unknown, field: string, allowed: readonly E[]): E[] {
  if (value === undefined) return [...DEFAULT_ALERT_ON] as E[];
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidArgumentError(`${field} must be a non-empty list of ${allowed.join(', ')}`, field);
  }
  for (const event of value) {
    if (!allowed.includes(event as E)) {
      throw new InvalidArgumentError(`${field} must hold only ${allowed.join(', ')}, got '${String(event)}'`, field);
    }
  }
  return [...new Set(value as E[])];
}

/** A job's rules, checked for shape: whether each channel exists is the alerts module's to say. */
export function jobAlertsOf(value: unknown): JobAlert[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError('alerts must be a list of { channel, on }', 'alerts');
  if (value.length > ALERT_LIMITS.rulesPerJob) {
    throw new InvalidArgumentError(`alerts must have at most ${ALERT_LIMITS.rulesPerJob} rules`, 'alerts');
  }
  const seen = new Set<string>();
  return value.map((rule: unknown, i) => {
    const field = `alerts[${i}]`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
      throw new InvalidArgumentError(`${field} must be an object { channel, on }`, field);
    }
    const { channel, on, ...rest } = rule as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw new InvalidArgumentError(`${field}.${unknown} is not a field of an alert`, field);
    if (typeof channel !== 'string' || channel.trim() === '' || channel.length > ALERT_LIMITS.channelNameMaxLength) {
      throw new InvalidArgumentError(
        `${field}.channel must be a channel's name (1 to ${ALERT_LIMITS.channelNameMaxLength} characters)`,
        `${field}.channel`,
      );
    }
    if (seen.has(channel))
      throw new InvalidArgumentError(`${field}.channel '${channel}' is named twice`, `${field}.channel`);
    seen.add(channel);
    return { channel, on: alertEventsOf(on, `${field}.on`) };
  });
}
