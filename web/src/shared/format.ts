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
const DATE = new Intl.DateTimeFormat(LOCALES, DAY);
const TIME = new Intl.DateTimeFormat(LOCALES, MINUTE);
const TIME_SECONDS = new Intl.DateTimeFormat(LOCALES, { ...MINUTE, second: '2-digit' });
const WHOLE = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat(LOCALES, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const UP_TO_ONE_DECIMAL = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 1 });
const UP_TO_THREE_DECIMALS = new Intl.NumberFormat(LOCALES, { maximumFractionDigits: 3 });

/** The browser's own time zone, in which instants are shown. */
export const LOCAL_ZONE = DATE_TIME.resolvedOptions().timeZone;

/** An instant from the API in the browser's time zone; '—' for none. */
export function dateTime(iso: string | null | undefined): string {
  return iso ? DATE_TIME.format(new Date(iso)) : '—';
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
