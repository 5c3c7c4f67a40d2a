import { hashSecret } from '../domain/api-token.js';

/** The secret of an `Authorization: Bearer <secret>` header, and its SHA-256 (hex), the key it is stored under. */
export interface Bearer {
  secret: string;
  hash: string;
}

const BEARER = Symbol('orbit:bearer');

interface RequestWithBearer {
  headers: Record<string, string | string[] | undefined>;
  [BEARER]?: Bearer | null;
}

/**
 * The request's bearer token, parsed and hashed once per request however many guards ask
 * (the rate limit counts per token, the auth guard looks the token up): null without one.
 * The scheme is case-insensitive, the token is not.
 */
export function bearerOf(request: RequestWithBearer): Bearer | null {
  const known = request[BEARER];
  if (known !== undefined) return known;
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer (\S+)$/i.exec(header.trim()) : null;
  const bearer = match ? { secret: match[1]!, hash: hashSecret(match[1]!) } : null;
  request[BEARER] = bearer;
  return bearer;
}
