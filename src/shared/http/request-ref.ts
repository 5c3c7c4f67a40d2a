/**
 * What a line logged while answering a request says about it: the id of its request line
 * (see RequestLog, which numbers the raw Node request), method and url. Takes a Fastify request
 * or the raw one. Passed explicitly: binding the request to every line through
 * AsyncLocalStorage, as nestjs-pino's middleware did, costs every request, and only the HTTP
 * layer logs while answering one.
 */
export function requestRef(request: RawRequest | { raw: RawRequest }): {
  id: unknown;
  method: string | undefined;
  url: string | undefined;
} {
  const req = 'raw' in request ? request.raw : request;
  return { id: req.id, method: req.method, url: req.originalUrl ?? req.url };
}

interface RawRequest {
  id?: unknown;
  method?: string;
  originalUrl?: string;
  url?: string;
}
