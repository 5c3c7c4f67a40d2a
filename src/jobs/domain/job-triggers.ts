import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

/** The final outcomes of a run another job may follow. */
export const TRIGGER_OUTCOMES = ['SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type TriggerOutcome = (typeof TRIGGER_OUTCOMES)[number];

export const TRIGGER_LIMITS = { perJob: 20 } as const;

/** Run this job when a run of the job named `after` ends, for good, with one of `on`. */
export interface JobTrigger {
  after: string;
  on: TriggerOutcome[];
}

/** A trigger as a caller writes it: `on` defaults to SUCCEEDED. */
export type JobTriggerInput = Pick<JobTrigger, 'after'> & Partial<Pick<JobTrigger, 'on'>>;

/** A job's triggers, checked for shape; whether each upstream job exists is the service's to say. */
export function jobTriggersOf(value: unknown, ownName: string): JobTrigger[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError('triggers must be a list of { after, on }', 'triggers');
  if (value.length > TRIGGER_LIMITS.perJob) {
    throw new InvalidArgumentError(`triggers must have at most ${TRIGGER_LIMITS.perJob} entries`, 'triggers');
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const field = `triggers[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new InvalidArgumentError(`${field} must be an object { after, on }`, field);
    }
    const { after, on, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw new InvalidArgumentError(`${field}.${unknown} is not a field of a trigger`, field);
    if (typeof after !== 'string' || after.trim() === '') {
      throw new InvalidArgumentError(`${field}.after must be the name of a job`, `${field}.after`);
    }
    if (after === ownName) {
      throw new InvalidArgumentError(
        `${field}.after: a job cannot be triggered by itself (cycle: ${after} → ${after})`,
        `${field}.after`,
      );
    }
    if (seen.has(after)) throw new InvalidArgumentError(`${field}.after '${after}' is named twice`, `${field}.after`);
    seen.add(after);
    return { after, on: outcomesOf(on, `${field}.on`) };
  });
}

function outcomesOf(value: unknown, field: string): TriggerOutcome[] {
  if (value === undefined) return ['SUCCEEDED'];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((outcome) => !TRIGGER_OUTCOMES.includes(outcome as TriggerOutcome))
  ) {
    throw new InvalidArgumentError(`${field} must be a non-empty list of ${TRIGGER_OUTCOMES.join(', ')}`, field);
  }
  return [...new Set(value as TriggerOutcome[])];
}

/**
 * The cycle that `name` with upstream jobs `after` would close in `graph` (each job's name →
 * the names it is triggered after), as the path from `name` back to it; null when none.
 */
export function cycleThrough(
  name: string,
  after: readonly string[],
  graph: ReadonlyMap<string, readonly string[]>,
): string[] | null {
  const visited = new Set<string>();
  const walk = (current: string, path: string[]): string[] | null => {
    if (current === name) return path;
    if (visited.has(current)) return null;
    visited.add(current);
    for (const upstream of graph.get(current) ?? []) {
      const found = walk(upstream, [...path, upstream]);
      if (found) return found;
    }
    return null;
  };
  for (const upstream of after) {
    const found = walk(upstream, [name, upstream]);
    if (found) return found;
  }
  return null;
}
