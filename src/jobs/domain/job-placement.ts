import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { Labels, labelsOf } from '../../shared/domain/labels.js';

/** `one`: a fire is one run on any matching worker; `all`: one run on each live matching worker. */
export const RUN_ON = ['one', 'all'] as const;
export type RunOn = (typeof RUN_ON)[number];

export const PLACEMENT_LIMITS = {
  priority: { min: -100, max: 100, default: 0 },
  maxConcurrent: { min: 1, max: 10_000 },
  groupLimit: { min: 1, max: 10_000 },
  groupNameMaxLength: 100,
} as const;

/** Where a job's runs may go and how many at once: the fields that say it, as the domain checks them. */
export interface JobPlacement {
  workerSelector: Labels;
  runOn: RunOn;
  /** At most this many of the job's runs RUNNING at once across the cluster; null: no limit. */
  maxConcurrent: number | null;
  /** The concurrency group whose limit the job's runs share; null: none. */
  concurrencyGroup: string | null;
  /** Among due runs, higher first, then the oldest. */
  priority: number;
}

export const DEFAULT_PLACEMENT: JobPlacement = {
  workerSelector: {},
  runOn: 'one',
  maxConcurrent: null,
  concurrencyGroup: null,
  priority: PLACEMENT_LIMITS.priority.default,
};

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A concurrency group's name: what jobs name it by. */
export function groupNameOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > PLACEMENT_LIMITS.groupNameMaxLength || !GROUP_NAME.test(value)) {
    throw new InvalidArgumentError(
      `${field} must be a group name (letters, digits, '.', '_', '-', at most ${PLACEMENT_LIMITS.groupNameMaxLength})`,
      field,
    );
  }
  return value;
}

export function placementOf(input: JobPlacement): JobPlacement {
  const { maxConcurrent, concurrencyGroup } = input;
  const max = PLACEMENT_LIMITS.maxConcurrent;
  if (maxConcurrent !== null && !isIntegerIn(maxConcurrent, max)) {
    throw new InvalidArgumentError(
      `maxConcurrent must be null or an integer from ${max.min} to ${max.max}`,
      'maxConcurrent',
    );
  }
  if (concurrencyGroup !== null) groupNameOf(concurrencyGroup, 'concurrencyGroup');
  // one limit per run keeps the claim's check to one count under one lock; a group of its own limits one job
  if (maxConcurrent !== null && concurrencyGroup !== null) {
    throw new InvalidArgumentError(
      'maxConcurrent and concurrencyGroup cannot both be set: put the job in a group of its own instead',
      'maxConcurrent',
    );
  }
  if (!RUN_ON.includes(input.runOn)) {
    throw new InvalidArgumentError(`runOn must be one of ${RUN_ON.join(', ')}`, 'runOn');
  }
  const priority = PLACEMENT_LIMITS.priority;
  if (!isIntegerIn(input.priority, priority)) {
    throw new InvalidArgumentError(`priority must be an integer from ${priority.min} to ${priority.max}`, 'priority');
  }
  return {
    workerSelector: labelsOf(input.workerSelector, 'workerSelector'),
    runOn: input.runOn,
    maxConcurrent,
    concurrencyGroup,
    priority: input.priority,
  };
}

function isIntegerIn(value: unknown, range: { min: number; max: number }): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max;
}
