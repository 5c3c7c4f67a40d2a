/** What stands for a URL's path and query once masked. */
export const URL_MASK = '…';

/**
 * An alert URL as answers, plans and logs show it: its scheme, host and port, which tell an
 * operator where it points, and `…` for the path and query, where providers put the secret
 * (Slack's `/services/T…/B…/<secret>`, a `?token=`). A URL with neither shows whole.
 */
export function maskedUrl(url: string): string {
  const parsed = new URL(url);
  const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '';
  return `${parsed.origin}/${bare ? '' : URL_MASK}`;
}

/** Whether `value` holds a mask: written back, it would replace the secret with `…`. */
export function holdsMask(value: string): boolean {
  return value.includes(URL_MASK) || value.toUpperCase().includes(encodeURI(URL_MASK));
}
