import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { dateTime, relativeTime, type Zone } from './format';

/** The zone the page shows instants in; the layout provides it from the address (`tz=UTC`). */
export const ZoneContext = createContext<Zone>('local');

/** One timer for every time shown: relative times move on together. */
const TICK_MS = 1000;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => listeners.forEach((tick) => tick()), TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => subscribe(() => setNow(Date.now())), []);
  return now;
}

/**
 * An instant: how long ago or until (`3 min ago`, `in 2 h`), the instant itself in the reader's
 * zone (or UTC) on hover. `exact` turns them round: the instant, and how far it is on hover (a
 * list of fire times, a timeline, where the instant is the point).
 */
export function Time({ iso, exact = false }: { iso: string | null | undefined; exact?: boolean }) {
  const zone = useContext(ZoneContext);
  const now = useNow();
  if (!iso) return <span>—</span>;
  const instant = dateTime(iso, zone);
  const relative = relativeTime(iso, now, zone);
  return (
    <time dateTime={iso} title={exact ? relative : instant}>
      {exact ? instant : relative}
    </time>
  );
}
