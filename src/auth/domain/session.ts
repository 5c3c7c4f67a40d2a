import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-token.js';

/** How long a session lives: since its last use, and at most since sign-in. */
export interface SessionLifetimes {
  idleMs: number;
  maxMs: number;
}

export interface SessionTimes {
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
}

/** How often a session's last use is written down: a request each second must not write each second. */
export const TOUCH_EVERY_MS = 60_000;

/** Whether a session still signs its holder in at `now`. */
export function sessionLive(session: SessionTimes, now: Date, lifetimes: SessionLifetimes): boolean {
  if (session.endedAt !== null) return false;
  const at = now.getTime();
  return at - session.lastSeenAt.getTime() < lifetimes.idleMs && at - session.createdAt.getTime() < lifetimes.maxMs;
}

/** Whether a use at `now` should move the session's last use forward. */
export function sessionNeedsTouch(session: SessionTimes, now: Date): boolean {
  return now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS;
}

/** A session's cookie value (256 random bits) and the hash it is stored under. */
export function newSessionSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}
