import type { Job, JobInput } from '../../api/client';

/*
 * The job form holds every field as text; these turn a job's values into that text and back.
 * Text the API would refuse goes as typed, for the API to name what is wrong with it.
 */

/** A whole number as a number; anything else as typed. */
export function integer(text: string): number {
  return /^-?\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number);
}

/** A whole number, or null for an empty field (the limit unset). */
export function optionalInteger(text: string): number | null {
  return text.trim() === '' ? null : integer(text);
}

/** Text as typed, or null for an empty field. */
export function optionalText(text: string): string | null {
  return text.trim() || null;
}

/** `region=eu, gpu=true` as a selector of labels; a pair without `=` is a label with an empty value. */
export function selectorOf(text: string): Record<string, string> {
  const pairs = text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [pair, ''] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
    });
  return Object.fromEntries(pairs) as Record<string, string>;
}

/** One trigger a line: `<job name>` (on success) or `<job name>: SUCCEEDED, FAILED`. */
export function triggersText(triggers: Job['triggers']): string {
  return triggers.map((trigger) => `${trigger.after}: ${(trigger.on ?? ['SUCCEEDED']).join(', ')}`).join('\n');
}

export function triggersOf(text: string): JobInput['triggers'] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.lastIndexOf(':');
      if (colon < 0) return { after: line };
      const on = line
        .slice(colon + 1)
        .split(',')
        .map((outcome) => outcome.trim().toUpperCase())
        .filter((outcome) => outcome !== '');
      return { after: line.slice(0, colon).trim(), on: on as NonNullable<JobInput['triggers']>[number]['on'] };
    });
}

/**
 * A job's alert rules as the form's text shows them: one rule a line, `channel: event, event`
 * (a channel alone takes the API's default, `failed`).
 */
export function alertsText(alerts: Job['alerts']): string {
  return alerts.map((rule) => (rule.on ? `${rule.channel}: ${rule.on.join(', ')}` : rule.channel)).join('\n');
}

export function alertsOf(text: string): NonNullable<JobInput['alerts']> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [channel = '', events] = line.split(/:(.*)/s);
      const on = (events ?? '')
        .split(',')
        .map((event) => event.trim())
        .filter(Boolean);
      return on.length > 0 ? { channel: channel.trim(), on: on as never } : { channel: channel.trim() };
    });
}
