import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

export const JITTER_SECONDS = { min: 0, max: 3600, default: 0 } as const;

/** An instant a caller wrote (ISO 8601 text or a Date), or null; anything else is a 400 naming `field`. */
export function instantOf(value: unknown, field: string): Date | null {
  if (value === null || value === undefined) return null;
  const instant = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (
    instant === null ||
    Number.isNaN(instant.getTime()) ||
    (typeof value === 'string' && !/^\d{4}-\d\d-\d\d/.test(value))
  ) {
    throw new InvalidArgumentError(`${field} must be an ISO 8601 instant (for example 2026-01-01T00:00:00Z)`, field);
  }
  return instant;
}

/**
 * How many milliseconds after `slot` a job with `jitterSeconds` runs it: spread evenly over
 * 0..N seconds, and the same on every node (a hash of the job and the slot, not Math.random),
 * so two schedulers that both plan a slot agree on when it is due.
 */
export function jitterMs(jobId: string, slot: Date, jitterSeconds: number): number {
  if (jitterSeconds === 0) return 0;
  const digest = createHash('sha256').update(`${jobId}|${slot.getTime()}`).digest();
  return digest.readUInt32BE(0) % (jitterSeconds * 1000 + 1);
}
