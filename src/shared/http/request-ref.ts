import type { IncomingMessage } from 'node:http';

/**
 * What a line logged while answering a request says about it: the id of its request line
 * (see RequestLog, which numbers the raw Node request), method and url. Passed explicitly:
 * binding the request to every line through AsyncLocalStorage, as nestjs-pino's middleware did,
 * costs every request, and only the HTTP layer logs while answering one.
 */
export function requestRef({ raw }: { raw: IncomingMessage & { id?: unknown } }): {
  id: unknown;
  method: string | undefined;
  url: string | undefined;
} {
  return { id: raw.id, method: raw.method, url: raw.url };
}
