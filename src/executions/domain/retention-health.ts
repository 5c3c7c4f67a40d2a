import type { ClusterAlertEvent } from '../../jobs/domain/job-alerts.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many retention intervals a run may outstay its deletion time before retention is behind. */
const BEHIND_AFTER_INTERVALS = 2;

/** Retention's health across the cluster: one record, which every node's pass updates in turn. */
export interface RetentionHealth {
  /**
   * When the first failed pass of the current streak ended; null once a pass succeeds and
   * leaves retention not behind.
   */
  failingSince: Date | null;
  /** The error of the streak's last failed pass. */
  lastError: string | null;
  /** When the cluster's last successful pass ended. */
  lastSuccessAt: Date | null;
  /**
   * The finish time of the oldest run that the last successful pass should have deleted (older
   * than the days, beyond the newest N of its job) and left stored; null when it left none.
   */
  overdueSince: Date | null;
}

/** How a pass ended, at the node's clock: what it left behind, or its error. */
export type RetentionPass = { ok: true; at: Date; overdueSince: Date | null } | { ok: false; at: Date; error: string };

/** The settings "behind" is judged by. */
export interface RetentionRule {
  days: number;
  intervalSeconds: number;
}

/**
 * The health after `pass`. A failure leaves what the last success found as it was. A success
 * ends a failure streak only when it leaves retention not behind: a node whose batches skipped
 * the rows a failing node held locked has not shown that retention works.
 */
export function healthAfter(before: RetentionHealth, pass: RetentionPass, rule: RetentionRule): RetentionHealth {
  if (!pass.ok) return { ...before, failingSince: before.failingSince ?? pass.at, lastError: pass.error };
  const found = { lastSuccessAt: pass.at, overdueSince: pass.overdueSince };
  const streak = isBehind({ ...before, ...found }, rule) ? before : { failingSince: null, lastError: null };
  return { failingSince: streak.failingSince, lastError: streak.lastError, ...found };
}

/**
 * How long past its deletion time (its finish plus the days) the oldest run the last successful
 * pass left was, when that pass ended; 0 when it left none.
 */
export function behindMs(health: RetentionHealth, rule: RetentionRule): number {
  if (health.overdueSince === null || health.lastSuccessAt === null) return 0;
  const deleteBy = health.overdueSince.getTime() + rule.days * DAY_MS;
  return Math.max(0, health.lastSuccessAt.getTime() - deleteBy);
}

/**
 * Behind: a successful pass left stored a run that should have been deleted more than
 * BEHIND_AFTER_INTERVALS retention intervals before it ended. Within that, the next pass of
 * some node would have deleted it: the rows of a batch another node was deleting at that
 * instant are no sign of trouble.
 */
export function isBehind(health: RetentionHealth, rule: RetentionRule): boolean {
  return behindMs(health, rule) > BEHIND_AFTER_INTERVALS * rule.intervalSeconds * 1000;
}

const unhealthy = (health: RetentionHealth, rule: RetentionRule): boolean =>
  health.failingSince !== null || isBehind(health, rule);

/**
 * The alert a change of health gives, once per streak: the failed pass that starts a failure
 * streak (`retention_failed`), the successful one that leaves retention behind outside such a
 * streak (`retention_behind`; within one it is the failures' doing), and the first that leaves
 * it neither failing nor behind after either (`retention_recovered`). Any other pass changes
 * nothing worth telling.
 */
export function alertOf(
  before: RetentionHealth,
  after: RetentionHealth,
  rule: RetentionRule,
): ClusterAlertEvent | null {
  if (before.failingSince === null && after.failingSince !== null) return 'retention_failed';
  if (after.failingSince === null && !isBehind(before, rule) && isBehind(after, rule)) return 'retention_behind';
  if (unhealthy(before, rule) && !unhealthy(after, rule)) return 'retention_recovered';
  return null;
}
