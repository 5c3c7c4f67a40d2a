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

/**
 * Parameters of the reader's view rather than of a page (`tz=UTC`: instants in UTC): every link
 * and every navigation keeps them, so the choice survives moving about, a reload and a shared link.
 */
const KEPT = ['tz'] as const;
type Kept = (typeof KEPT)[number];

/** `to` with the kept parameters of the address as it is now, where `to` does not set them itself. */
function keeping(to: string): string {
  const here = new URLSearchParams(window.location.search);
  const carried = KEPT.filter((key) => here.has(key) && !new RegExp(`[?&]${key}=`).test(to));
  if (carried.length === 0) return to;
  const query = new URLSearchParams(carried.map((key) => [key, here.get(key)!]));
  return `${to}${to.includes('?') ? '&' : '?'}${query.toString()}`;
}

function go(url: string, replace: boolean): void {
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** Changes the address (filters and paging live there, so Back works) and renders what it names. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  go(BASE + keeping(to), options.replace ?? false);
}

/** Sets (or, with no value, clears) a parameter of the reader's view, in place: Back does not undo it. */
export function setKept(key: Kept, value: string | undefined): void {
  const query = new URLSearchParams(window.location.search);
  if (value) query.set(key, value);
  else query.delete(key);
  const text = query.toString();
  go(`${window.location.pathname}${text ? `?${text}` : ''}`, true);
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
  title?: string;
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
    <a {...props} href={BASE + keeping(href)} onClick={follow}>
      {children}
    </a>
  );
}
