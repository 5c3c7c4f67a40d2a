import { useEffect, useRef, useState } from 'preact/hooks';
import type { OrbitEvent } from '../api/client';
import { eventStream } from './event-stream';
import { Rereads } from './rereads';

export interface Live<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Loads again now (after an action), without waiting for an event. */
  reload: () => void;
}

export interface LiveOptions<T> {
  /** Which events of the stream change what this view shows: each makes it read again (coalesced). */
  concerns?: (event: OrbitEvent, data: T | undefined) => boolean;
  /** Reads again this often while `pollWhile` holds, stream or not: for what the stream does not carry. */
  pollMs?: number;
  pollWhile?: (data: T | undefined) => boolean;
}

/** At most one re-read per view in this time, however many events come. */
const COALESCE_MS = 250;
/** While the stream is down, views that follow it read this often instead. */
const FALLBACK_MS = 10_000;

/**
 * Every view that follows the server goes through here. It reads once, then again when an
 * event of the tab's one stream concerns it (web/src/live/event-stream.ts), at most once per
 * 250 ms; while the stream is down it polls slowly, and `pollMs` polls for what the stream does
 * not carry (a running run's output, heartbeats). A hidden tab reads when it is shown again.
 */
export function useLive<T>(load: () => Promise<T>, deps: readonly unknown[], options: LiveOptions<T> = {}): Live<T> {
  // what was loaded for other deps (the page before a navigation) is never shown for these
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key?: string; data?: T; error?: Error }>({});
  const rereads = useRef<Rereads | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    let latest: T | undefined;
    let poll: ReturnType<typeof setTimeout> | undefined;
    const schedulePoll = () => {
      clearTimeout(poll);
      const every =
        options.pollMs !== undefined && (options.pollWhile?.(latest) ?? true)
          ? options.pollMs
          : options.concerns && !eventStream.isUp
            ? FALLBACK_MS
            : undefined;
      if (every !== undefined) poll = setTimeout(() => rereads.current?.request(), every);
    };
    const read = async () => {
      try {
        const data = await load();
        if (stopped) return;
        latest = data;
        setState({ key, data });
      } catch (error) {
        if (stopped) return;
        const failure = error instanceof Error ? error : new Error(String(error));
        setState((previous) => ({ ...(previous.key === key ? previous : {}), key, error: failure }));
      } finally {
        if (!stopped) schedulePoll();
      }
    };
    const own = new Rereads(read, COALESCE_MS, () => document.hidden);
    rereads.current = own;
    const shown = () => own.resume();
    document.addEventListener('visibilitychange', shown);
    const concerns = options.concerns;
    // followed before the first read, so that no event between the two is missed
    const unfollow = concerns
      ? eventStream.follow({
          event: (event) => {
            if (concerns(event, latest)) own.request();
          },
          state: schedulePoll,
          resync: () => own.request(),
        })
      : () => undefined;
    own.request();
    return () => {
      stopped = true;
      own.stop();
      clearTimeout(poll);
      unfollow();
      document.removeEventListener('visibilitychange', shown);
    };
  }, [key]);
  const current: typeof state = state.key === key ? state : {};
  return { data: current.data, error: current.error, reload: () => rereads.current?.request() };
}
