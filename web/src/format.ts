import cronstrue from 'cronstrue';

const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
};
const DATE_TIME = new Intl.DateTimeFormat(undefined, DATE_TIME_OPTIONS);

/** An instant from the API in the browser's time zone; '—' for none. */
export function dateTime(iso: string | null | undefined): string {
  return iso ? DATE_TIME.format(new Date(iso)) : '—';
}

/** An instant in a given IANA time zone (a job's), or undefined when the zone is not one. */
export function dateTimeIn(iso: string, timeZone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { ...DATE_TIME_OPTIONS, timeZone }).format(new Date(iso));
  } catch {
    return undefined;
  }
}

/** The browser's own time zone, in which instants are shown. */
export const LOCAL_ZONE = DATE_TIME.resolvedOptions().timeZone;

/** A cron expression in words, or undefined when cronstrue does not read it (the API decides what is valid). */
export function cronInWords(expression: string): string | undefined {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return undefined;
  }
}

/** How long between two instants, in words a person reads at a glance. */
export function duration(fromIso: string | null, toIso: string | null): string {
  if (!fromIso || !toIso) return '—';
  return millis(Date.parse(toIso) - Date.parse(fromIso));
}

/** A length of time in milliseconds, in words a person reads at a glance. */
export function millis(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return minutes < 60 ? `${minutes} min ${Math.round((ms % 60_000) / 1000)} s` : `${(minutes / 60).toFixed(1)} h`;
}

/** A share from 0 to 1 as a percentage; '—' for none. */
export function percent(share: number | null | undefined): string {
  return share === null || share === undefined ? '—' : `${Math.round(share * 1000) / 10} %`;
}
