import { isDeepStrictEqual } from 'node:util';

/** One field of a resource whose value a change sets from one value to another. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * The fields whose values differ between two shapes of a resource (stored JSON keeps no key
 * order; a missing value counts as null), in the order of `to`'s keys.
 */
export function changedFields(from: object, to: object): FieldChange[] {
  const before = from as Record<string, unknown>;
  return Object.entries(to as Record<string, unknown>)
    .filter(([field, value]) => !isDeepStrictEqual(before[field] ?? null, value ?? null))
    .map(([field, value]) => ({ field, from: before[field] ?? null, to: value }));
}
