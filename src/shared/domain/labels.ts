import { InvalidArgumentError } from './domain-errors.js';

/** Pairs a worker says about itself (`region=eu`), and what a job asks of the worker that runs it. */
export type Labels = Readonly<Record<string, string>>;

export const LABEL_LIMITS = { pairs: 20, keyMaxLength: 63, valueMaxLength: 63 } as const;
/** Keys and values as Kubernetes labels spell them: no spaces, no `=` or `,`, so `k=v,k2=v2` stays readable. */
const LABEL_TEXT = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/** Throws a 400 naming `field` unless `value` is a flat object of at most 20 label pairs. */
export function labelsOf(value: unknown, field: string): Labels {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(`${field} must be an object of label pairs, like {"region": "eu"}`, field);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > LABEL_LIMITS.pairs) {
    throw new InvalidArgumentError(`${field} must have at most ${LABEL_LIMITS.pairs} pairs`, field);
  }
  for (const [key, text] of entries) {
    if (key.length > LABEL_LIMITS.keyMaxLength || !LABEL_TEXT.test(key)) {
      throw new InvalidArgumentError(
        `${field}: '${key}' is no label key (letters, digits, '.', '_', '/', '-', at most ${LABEL_LIMITS.keyMaxLength})`,
        field,
      );
    }
    if (typeof text !== 'string' || text.length > LABEL_LIMITS.valueMaxLength || !LABEL_TEXT.test(text)) {
      throw new InvalidArgumentError(
        `${field}.${key} must be a label value (letters, digits, '.', '_', '/', '-', at most ${LABEL_LIMITS.valueMaxLength})`,
        field,
      );
    }
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1))) as Labels;
}

/** `region=eu,gpu=true` as labels. */
export function parseLabels(text: string, field: string): Labels {
  const pairs = text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new InvalidArgumentError(`${field}: '${pair}' is not key=value`, field);
      return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    });
  return labelsOf(Object.fromEntries(pairs), field);
}

/** `region=eu, gpu=true`: how a message names labels. */
export function formatLabels(labels: Labels): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}

/** Whether a worker with `labels` has every pair of `selector`. */
export function matches(selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}
