import cronstrue from 'cronstrue';
import { usableLocales } from './locales';

/*
 * Every date, time and number the dashboard shows is written here, in the browser's locale: no
 * other module calls toLocale* or Intl (format-boundary.spec.ts beside it holds that).
 */

const LOCALES = usableLocales(navigator.languages, document.documentElement.lang);

const DAY: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit' };
const MINUTE: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = { ...DAY, ...MINUTE, second: '2-digit', timeZoneName: 'short' };

const DATE_TIME = new Intl.DateTimeFormat(LOCALES, DATE_TIME_OPTIONS);
const DATE_TIME_UTC = new Intl.DateTimeFormat(LOCALES, { ...DATE_TIME_OPTIONS, timeZone: 'UTC' });
const SHORT_OPTIONS: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', ...MINUTE };
const SHORT: Record<Zone, Record<'thisYear' | 'otherYear', Intl.DateTimeFormat>> = {
  local: {
    thisYear: new Intl.DateTimeFormat(LOCALES, SHORT_OPTIONS),
    otherYear: new Intl.DateTimeFormat(LOCALES, { ...SHORT_OPTIONS, year: 'numeric' }),
  },
  UTC: {
    thisYear: new Intl.DateTimeFormat(LOCALES, { ...SHORT_OPTIONS, timeZone: 'UTC' }),
    otherYear: new Intl.DateTimeFormat(LOCALES, { ...SHORT_OPTIONS, year: 'numeric', timeZone: 'UTC' }),
  },
};
const DATE = new Intl.DateTimeFormat(LOCALES, DAY);
const TIME = new Intl.DateTimeFormat(LOCALES, MINUTE);
const TIME_UTC = new Intl.DateTimeFormat(LOCALES, { ...MINUTE, timeZone: 'UTC' });
const TIME_SECONDS = new Intl.DateTimeFormat(LOCALES, { ...MINUTE, second: '2-digit' });
const WHOLE = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat(LOCALES, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const UP_TO_ONE_DECIMAL = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 1 });
const UP_TO_THREE_DECIMALS = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 3 });

/** The browser's own time zone, in which instants are shown unless the reader asks for UTC. */
export const LOCAL_ZONE = DATE_TIME.resolvedOptions().timeZone;

/** Where the page shows instants: the browser's zone, or UTC (the address says which). */
export type Zone = 'local' | 'UTC';

/** An instant from the API in the browser's time zone (or UTC); '—' for none. */
export function dateTime(iso: string | null | undefined, zone: Zone = 'local'): string {
  return iso ? (zone === 'UTC' ? DATE_TIME_UTC : DATE_TIME).format(new Date(iso)) : '—';
}

const SECOND = 1000;
const MINUTE_MS = 60 * SECOND;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * An instant as far from `now` as it is, as the CLI writes it: within a day, how long ago or
 * until (`12 s ago`, `in 5 min`, `3 h ago`); further, its date and time, short (the year only
 * when it is not this year's), in `zone`.
 */
export function relativeTime(iso: string, now: number, zone: Zone = 'local'): string {
  const at = Date.parse(iso);
  const ms = at - now;
  const distance = Math.abs(ms);
  if (distance >= DAY_MS) {
    const sameYear = new Date(at).getUTCFullYear() === new Date(now).getUTCFullYear();
    return SHORT[zone][sameYear ? 'thisYear' : 'otherYear'].format(at);
  }
  const amount =
    distance < MINUTE_MS
      ? `${WHOLE.format(Math.round(distance / SECOND))} s`
      : distance < HOUR_MS
        ? `${WHOLE.format(Math.round(distance / MINUTE_MS))} min`
        : `${WHOLE.format(Math.round(distance / HOUR_MS))} h`;
  return ms <= 0 ? `${amount} ago` : `in ${amount}`;
}

/** An instant in a given IANA time zone (a job's), or undefined when the zone is not one. */
export function dateTimeIn(iso: string, timeZone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(LOCALES, { ...DATE_TIME_OPTIONS, timeZone }).format(new Date(iso));
  } catch {
    return undefined;
  }
}

/**
 * The labels of a time axis (ticks in seconds since the epoch, `step` seconds apart) in the page's
 * date format: the time of each tick and, below the first tick of each day, its date; dates alone
 * when the ticks are a day or more apart.
 */
export function timeAxis(ticks: readonly number[], step: number): string[] {
  const time = step < 60 ? TIME_SECONDS : TIME;
  let lastDay = '';
  return ticks.map((tick) => {
    const at = new Date(tick * 1000);
    const day = DATE.format(at);
    if (step >= 86_400) return day;
    const label = day === lastDay ? time.format(at) : `${time.format(at)}\n${day}`;
    lastDay = day;
    return label;
  });
}

/** The time of day of an instant, to the minute (a chart's bucket), in `zone`. */
export function clockTime(iso: string, zone: Zone = 'local'): string {
  return (zone === 'UTC' ? TIME_UTC : TIME).format(new Date(iso));
}

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
  if (ms < 1000) return `${WHOLE.format(ms)} ms`;
  if (ms < 60_000) return `${ONE_DECIMAL.format(ms / 1000)} s`;
  const wholeSeconds = Math.round(ms / 1000);
  if (wholeSeconds < 3600) return `${count(Math.floor(wholeSeconds / 60))} min ${count(wholeSeconds % 60)} s`;
  return `${ONE_DECIMAL.format(ms / 3_600_000)} h`;
}

/** A whole number of seconds (a setting), as the settings show it. */
export function seconds(s: number): string {
  return `${count(s)} s`;
}

/** A share from 0 to 1 as a percentage; '—' for none. */
export function percent(share: number | null | undefined): string {
  return share === null || share === undefined ? '—' : `${UP_TO_ONE_DECIMAL.format(share * 100)} %`;
}

/** A count, grouped as the locale groups thousands. */
export function count(n: number): string {
  return WHOLE.format(n);
}

/** A measured value (a chart's scale), to at most three decimals. */
export function decimal(n: number): string {
  return UP_TO_THREE_DECIMALS.format(n);
}

/** A count with its noun in the number it needs: "1 run", "3 runs". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** The last of something, counted: "last run", "last 3 runs". */
export function lastOf(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? `last ${one}` : `last ${counted(n, one, many)}`;
}
