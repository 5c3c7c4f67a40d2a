import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { alertEventsOf, chosenEvent, failingAfter, jobEventsOf, mayAlert } from './alert-rules.js';

function event(type: OrbitEvent['type'], retryQueued = false, cause: string | null = null): OrbitEvent {
  return {
    seq: 1,
    type,
    at: new Date(0),
    jobId: 'j',
    executionId: 'e',
    from: 'RUNNING',
    to: type.replace('execution.', '').toUpperCase(),
    attempt: 1,
    trigger: 'MANUAL',
    exitCode: null,
    errorMessage: null,
    workerId: null,
    retryQueued,
    cause,
    slot: null,
    detail: null,
  };
}

describe('alert rules', () => {
  it('a failure with a retry queued is only an attempt_failed; without, failed first', () => {
    expect(alertEventsOf(event('execution.failed', true), false)).toEqual(['attempt_failed']);
    expect(alertEventsOf(event('execution.failed'), false)).toEqual(['failed', 'attempt_failed']);
  });

  it('a failure whose worker was lost is worker_lost first, by its cause, not its message', () => {
    expect(alertEventsOf(event('execution.failed', false, 'worker_lost'), false)).toEqual([
      'worker_lost',
      'failed',
      'attempt_failed',
    ]);
    expect(alertEventsOf(event('execution.failed', true, 'worker_lost'), false)).toEqual([
      'worker_lost',
      'attempt_failed',
    ]);
    expect(alertEventsOf(event('execution.failed', false, 'timeout'), false)).toEqual(['failed', 'attempt_failed']);
  });

  it('a success after a failure for good is recovered first; otherwise succeeded only', () => {
    expect(alertEventsOf(event('execution.succeeded'), true)).toEqual(['recovered', 'succeeded']);
    expect(alertEventsOf(event('execution.succeeded'), false)).toEqual(['succeeded']);
  });

  it.each(['execution.queued', 'execution.running', 'execution.cancelled', 'job.updated'] as const)(
    '%s alerts on nothing',
    (type) => {
      expect(mayAlert(event(type))).toBe(false);
      expect(alertEventsOf(event(type), true)).toEqual([]);
    },
  );

  it.each([
    ['slot.late', 'late'],
    ['execution.long_running', 'long_running'],
    ['slot.missed', 'missed'],
    ['slot.skipped', 'missed'],
  ] as const)('%s alerts as %s, whatever the failing state, and keeps it', (type, alert) => {
    expect(mayAlert(event(type))).toBe(true);
    expect(alertEventsOf(event(type), false)).toEqual([alert]);
    expect(alertEventsOf(event(type), true)).toEqual([alert]);
    expect(failingAfter(event(type), true)).toBe(true);
    expect(failingAfter(event(type), false)).toBe(false);
  });

  it('the failing state: set by a failure for good, kept by a retried one and a cancel, cleared by a success', () => {
    expect(failingAfter(event('execution.failed'), false)).toBe(true);
    expect(failingAfter(event('execution.failed', true), false)).toBe(false);
    expect(failingAfter(event('execution.cancelled'), true)).toBe(true);
    expect(failingAfter(event('execution.succeeded'), true)).toBe(false);
  });

  it('a channel gets the most telling event it asked for, once', () => {
    expect(chosenEvent(['failed', 'attempt_failed'], ['attempt_failed', 'failed'])).toBe('failed');
    expect(chosenEvent(['failed', 'attempt_failed'], ['attempt_failed'])).toBe('attempt_failed');
    expect(chosenEvent(['succeeded'], ['failed'])).toBeNull();
  });

  it("a channel's job events are the stream consumer's; the cluster's are not", () => {
    expect(jobEventsOf(['retention_failed', 'late', 'retention_recovered', 'failed'])).toEqual(['late', 'failed']);
    expect(jobEventsOf(['retention_behind'])).toEqual([]);
  });
});
