import { hashSecret } from '../domain/api-token.js';

/** The secret of an `Authorization: Bearer <secret>` header, and its SHA-256 (hex), the key it is stored under. */
export interface Bearer {
  secret: string;
  hash: string;
}

const BEARER = Symbol('orbit:bearer');

/**
 * The hashes of the secrets seen lately: a client sends the same token on every request, and
 * hashing it took about 10 µs of CPU per request in a profile under load (a read by id costs the
 * API process 130–170 µs). Emptied when full: unknown tokens sent in bulk cost a hash each, as
 * before, and no more memory.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES_MAX = 1024;

function hashOf(secret: string): string {
  let hash = recentHashes.get(secret);
  if (hash === undefined) {
    if (recentHashes.size >= RECENT_HASHES_MAX) recentHashes.clear();
    hash = hashSecret(secret);
    recentHashes.set(secret, hash);
  }
  return hash;
}

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
  const bearer = match ? { secret: match[1]!, hash: hashOf(match[1]!) } : null;
  request[BEARER] = bearer;
  return bearer;
}
