import { useEffect, useState } from 'preact/hooks';

export interface Live<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Loads again now (after an action), without waiting for the next turn. */
  reload: () => void;
}

/**
 * Every view that follows the server goes through here. Today it polls the REST API every
 * `everyMs` while the tab is visible; when the event stream lands, this is the one place that
 * changes to load on an event instead. `until` stops following once it holds (a finished run).
 */
export function useLive<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  options: { everyMs: number; until?: (value: T) => boolean },
): Live<T> {
  // what was loaded for other deps (the page before a navigation) is never shown for these
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key?: string; data?: T; error?: Error }>({});
  const [turn, setTurn] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (document.hidden) {
        timer = setTimeout(() => void tick(), options.everyMs);
        return;
      }
      try {
        const data = await load();
        if (stopped) return;
        setState({ key, data });
        if (options.until?.(data)) return;
      } catch (error) {
        if (stopped) return;
        const failure = error instanceof Error ? error : new Error(String(error));
        setState((previous) => ({ ...(previous.key === key ? previous : {}), key, error: failure }));
      }
      timer = setTimeout(() => void tick(), options.everyMs);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [...deps, turn]);
  const current: typeof state = state.key === key ? state : {};
  return { data: current.data, error: current.error, reload: () => setTurn((n) => n + 1) };
}
