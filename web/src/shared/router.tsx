import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the API serves the dashboard; every path below is the page's own. */
const BASE = '/ui';
const NAVIGATED = 'orbit:navigate';

export interface Location {
  path: string;
  query: URLSearchParams;
  /** The whole address this location was read from. */
  href: string;
}

function current(): Location {
  const path = window.location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  return { path, query: new URLSearchParams(window.location.search), href: window.location.href };
}

/** Changes the address (filters and paging live there, so Back works) and renders what it names. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    // effects run after the first paint: a navigation before this line (a quick first click) went unheard
    if (window.location.href !== location.href) update();
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return location;
}

/** A path with a query string made of the parameters that have a value. */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page';
}

/** An ordinary link (it opens in a new tab as one would) that the page follows itself. */
export function Link({ href, children, ...props }: LinkProps) {
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a {...props} href={BASE + href} onClick={follow}>
      {children}
    </a>
  );
}
