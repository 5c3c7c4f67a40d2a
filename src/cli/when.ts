/** Instants and durations as a person at a terminal reads them (--json keeps the API's ISO instants). */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Within a day of now, how long ago or until (`12 s ago`, `in 5 min`, `3 h ago`); further, the
 * local date and time, short (`Dec 3, 14:05`, the year only when it is not this year's), in the
 * user's locale and time zone.
 */
export function when(iso: string | null | undefined, now: number = Date.now()): string | null {
  if (!iso) return null;
  const at = new Date(iso);
  const ms = at.getTime() - now;
  const distance = Math.abs(ms);
  if (distance < DAY) {
    const amount =
      distance < MINUTE
        ? `${Math.round(distance / SECOND)} s`
        : distance < HOUR
          ? `${Math.round(distance / MINUTE)} min`
          : `${Math.round(distance / HOUR)} h`;
    return ms < 0 ? `${amount} ago` : `in ${amount}`;
  }
  const sameYear = at.getFullYear() === new Date(now).getFullYear();
  return new Intl.DateTimeFormat(undefined, {
    ...(sameYear ? {} : { year: 'numeric' }),
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(at);
}

/** How long from `from` to `to` (now while it runs): `850 ms`, `12.4 s`, `3 min 05 s`, `2 h 07 min`. */
export function took(from: string | null | undefined, to: string | null | undefined, now = Date.now()): string | null {
  if (!from) return null;
  const ms = (to ? new Date(to).getTime() : now) - new Date(from).getTime();
  if (ms < SECOND) return `${ms} ms`;
  if (ms < MINUTE) return `${(ms / SECOND).toFixed(1)} s`;
  const pad = (n: number) => String(Math.floor(n)).padStart(2, '0');
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ${pad((ms % MINUTE) / SECOND)} s`;
  return `${Math.floor(ms / HOUR)} h ${pad((ms % HOUR) / MINUTE)} min`;
}
