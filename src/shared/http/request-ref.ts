/**
 * What a line logged while answering a request says about it: the id of its request line
 * (see RequestLog), method and url. Passed explicitly: binding the request to every line
 * through AsyncLocalStorage, as nestjs-pino's middleware did, costs every request, and only the
 * HTTP layer logs while answering one.
 */
export function requestRef(req: { id?: unknown; method?: string; originalUrl?: string; url?: string }): {
  id: unknown;
  method: string | undefined;
  url: string | undefined;
} {
  return { id: req.id, method: req.method, url: req.originalUrl ?? req.url };
}
