import type { ClusterAlertEvent } from '../../jobs/domain/job-alerts.js';
import { alertOf, behindMs, healthAfter, isBehind, RetentionHealth, RetentionPass } from './retention-health.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const RULE = { days: 30, intervalSeconds: 600 };
/** What the migration writes: no pass yet. */
const HEALTHY: RetentionHealth = { failingSince: null, lastError: null, lastSuccessAt: null, overdueSince: null };
const T0 = new Date('2026-11-30T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);

/** A run left stored, `late` minutes past its deletion time at T0 (finished 30 days before that). */
const left = (late: number) => new Date(T0.getTime() - 30 * DAY - late * MINUTE);

const failed = (minutes: number, error = 'disk full'): RetentionPass => ({ ok: false, at: at(minutes), error });
const succeeded = (minutes: number, overdueSince: Date | null = null): RetentionPass => ({
  ok: true,
  at: at(minutes),
  overdueSince,
});

/** The alerts a history of passes gives, from a healthy start, one per pass (null: none). */
function alertsOf(passes: RetentionPass[]): (ClusterAlertEvent | null)[] {
  let health: RetentionHealth = HEALTHY;
  return passes.map((pass) => {
    const after = healthAfter(health, pass, RULE);
    const alert = alertOf(health, after, RULE);
    health = after;
    return alert;
  });
}

describe('retention health', () => {
  it.each<[string, RetentionPass[], (ClusterAlertEvent | null)[]]>([
    ['healthy passes tell nothing', [succeeded(0), succeeded(10)], [null, null]],
    ['a failure streak is told once', [failed(0), failed(10), failed(20)], ['retention_failed', null, null]],
    ['the first healthy success ends it', [failed(0), succeeded(10)], ['retention_failed', 'retention_recovered']],
    [
      'a success that leaves retention behind does not end a failure streak',
      [failed(0), succeeded(0, left(30)), failed(10), succeeded(10)],
      ['retention_failed', null, null, 'retention_recovered'],
    ],
    [
      'a success that leaves a run only a little late ends it',
      [failed(0), succeeded(0, left(5))],
      ['retention_failed', 'retention_recovered'],
    ],
    ['being behind is told once', [succeeded(0, left(21)), succeeded(10, left(31))], ['retention_behind', null]],
    ['two intervals late is not behind yet', [succeeded(0, left(20))], [null]],
    [
      'passes failing while behind are told, and the all-clear waits for both to end',
      [succeeded(0, left(30)), failed(10), succeeded(20, left(50)), succeeded(30)],
      ['retention_behind', 'retention_failed', null, 'retention_recovered'],
    ],
  ])('%s', (_, passes, alerts) => {
    expect(alertsOf(passes)).toEqual(alerts);
  });

  it('a failure keeps what the last success found, and the streak its first failure and last error', () => {
    const behind = healthAfter(HEALTHY, succeeded(0, left(30)), RULE);
    const first = healthAfter(behind, failed(10, 'first'), RULE);
    expect(healthAfter(first, failed(20, 'second'), RULE)).toEqual({
      failingSince: at(10),
      lastError: 'second',
      lastSuccessAt: at(0),
      overdueSince: left(30),
    });
  });

  it('behind is measured from the deletion time to the end of the last success', () => {
    const health = healthAfter(HEALTHY, succeeded(0, left(20)), RULE);
    expect(behindMs(health, RULE)).toBe(20 * MINUTE);
    expect(isBehind(health, RULE)).toBe(false);
    expect(isBehind({ ...health, lastSuccessAt: at(0.001) }, RULE)).toBe(true);
    expect(behindMs(healthAfter(health, succeeded(10), RULE), RULE)).toBe(0);
  });
});
