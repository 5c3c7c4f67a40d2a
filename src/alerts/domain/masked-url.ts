/** What stands for each secret part of a URL once masked. */
export const URL_MASK = '…';

/** A path segment or a query name that reads as a word: letters with `-`, `_`, `.` or `~`, no digit. */
const WORD = /^[A-Za-z._~-]+$/;

/**
 * An alert URL as answers, plans and logs show it: enough to tell where it points, nothing of
 * the secrets providers put in it. Its scheme, host and port show whole; `…` stands for a user
 * and password, for the last segment of the path (where Slack, Discord, Mattermost, ntfy and
 * most webhooks put their token), for any other segment that is not a word (ids and tokens hold
 * digits), for every value of the query and any parameter without one, and for the fragment.
 */
export function maskedUrl(url: string): string {
  const parsed = new URL(url);
  const user = parsed.username !== '' || parsed.password !== '' ? `${URL_MASK}@` : '';
  return `${parsed.protocol}//${user}${parsed.host}${maskedPath(parsed.pathname)}${maskedQuery(parsed.search)}${
    parsed.hash === '' ? '' : `#${URL_MASK}`
  }`;
}

function maskedPath(path: string): string {
  const segments = path.split('/');
  const last = segments.findLastIndex((segment) => segment !== '');
  return segments
    .map((segment, i) => (segment === '' || (i !== last && WORD.test(segment)) ? segment : URL_MASK))
    .join('/');
}

function maskedQuery(search: string): string {
  if (search === '') return '';
  const parameters = search.slice(1).split('&');
  return `?${parameters
    .map((parameter) => {
      const [name = '', value] = parameter.split('=', 2);
      return WORD.test(name) && value !== undefined && value !== '' ? `${name}=${URL_MASK}` : URL_MASK;
    })
    .join('&')}`;
}

/** Whether `value` holds a mask: written back, it would replace the secret with `…`. */
export function holdsMask(value: string): boolean {
  return value.includes(URL_MASK) || value.toUpperCase().includes(encodeURI(URL_MASK));
}
