import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { ALERT_EVENTS, type AlertEvent, type ChannelAlertEvent } from '../../jobs/domain/job-alerts.js';

/** The alert event each stream event that is not a run's outcome gives. */
const NOTICES: Partial<Record<OrbitEvent['type'], AlertEvent>> = {
  'slot.late': 'late',
  'execution.long_running': 'long_running',
  'slot.missed': 'missed',
  'slot.skipped': 'missed',
};

/** Whether the stream event can give an alert at all: the hot path's first filter. */
export function mayAlert(event: OrbitEvent): boolean {
  return event.type === 'execution.failed' || event.type === 'execution.succeeded' || event.type in NOTICES;
}

/**
 * The alert events a stream event is, most telling first: a channel gets the first one it
 * asked for, so one change gives a channel one delivery. `wasFailing`: the job's last final
 * outcome before this one was a failure.
 */
export function alertEventsOf(event: OrbitEvent, wasFailing: boolean): AlertEvent[] {
  if (event.type === 'execution.failed') {
    const lost: AlertEvent[] = event.cause === 'worker_lost' ? ['worker_lost'] : [];
    return [...lost, ...(event.retryQueued ? [] : (['failed'] as const)), 'attempt_failed'];
  }
  if (event.type === 'execution.succeeded') return wasFailing ? ['recovered', 'succeeded'] : ['succeeded'];
  const notice = NOTICES[event.type];
  return notice ? [notice] : [];
}

/** The job's failing state after the event: a failure for good sets it, a success clears it, the rest keep it. */
export function failingAfter(event: OrbitEvent, wasFailing: boolean): boolean {
  if (event.type === 'execution.failed' && !event.retryQueued) return true;
  if (event.type === 'execution.succeeded') return false;
  return wasFailing;
}

/** The first of `candidates` that `on` asks for, or null. */
export function chosenEvent(candidates: readonly AlertEvent[], on: readonly ChannelAlertEvent[]): AlertEvent | null {
  return candidates.find((event) => on.includes(event)) ?? null;
}

/** A channel's events that are about jobs: the cluster's are not the stream consumer's to send. */
export function jobEventsOf(on: readonly ChannelAlertEvent[]): AlertEvent[] {
  return on.filter((event): event is AlertEvent => (ALERT_EVENTS as readonly string[]).includes(event));
}
