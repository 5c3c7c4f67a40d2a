import type { Job, JobInput } from '../../api/client';

/**
 * A job's alert rules as the form's text shows them: one rule a line, `channel: event, event`
 * (a channel alone takes the API's default, `failed`).
 */
export function alertsText(alerts: Job['alerts']): string {
  return alerts.map((rule) => (rule.on ? `${rule.channel}: ${rule.on.join(', ')}` : rule.channel)).join('\n');
}

/** The rules of the form's text; the API says what is wrong with a channel or an event. */
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

/** A number of seconds, or null for an empty field (the limit unset). */
export function optionalSeconds(text: string): number | null {
  if (text.trim() === '') return null;
  return /^-?\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number);
}
