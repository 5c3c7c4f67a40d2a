import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { bearerOf } from './bearer.js';
import { clientOf } from './client-address.js';
import { CountsPerMinute } from './counts-per-minute.js';

/** A request these limits turn away: a 429 with this message, and Retry-After. */
export interface LimitRefusal {
  message: string;
  retryAfterSeconds: number;
}

interface LimitedRequest {
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Token hashes kept as known at most; emptied when full, so a flood of tokens costs no memory. */
const KNOWN_TOKENS_MAX = 10_000;

/**
 * This node's limits on requests, counted in the calendar minute:
 * - ORBIT_SIGN_IN_FAILURES_PER_MINUTE failed sign-ins (unknown or revoked tokens) per client
 *   address; beyond that, a request from there with a token this node has not accepted is
 *   refused before its token is looked up. A token this node accepted, and has not refused
 *   since, still passes (and is still looked up): someone guessing tokens behind a shared
 *   address (an office, a proxy) does not lock out the clients that already work there.
 * - ORBIT_RATE_LIMIT_PER_MINUTE requests per token, or per client address without one.
 * (@nestjs/throttler would do, but its CommonJS build cannot load NestJS 12 under Jest.)
 */
@Injectable()
export class RequestLimits {
  private readonly requests = new CountsPerMinute();
  private readonly failures = new CountsPerMinute();
  private readonly knownTokens = new Set<string>();

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
  ) {}

  /** Counts the request; null when it may go on. */
  refusal(request: LimitedRequest): LimitRefusal | null {
    const now = this.clock.now().getTime();
    const bearer = bearerOf(request);
    const client = clientOf(request);
    const failures = this.config.signInFailuresPerMinute;
    if (bearer && failures > 0 && !this.knownTokens.has(bearer.hash) && this.failures.of(client, now) >= failures) {
      const seconds = CountsPerMinute.secondsLeft(now);
      return {
        message: `Too many failed sign-ins from ${client} (at most ${failures} a minute): try again in ${seconds} s`,
        retryAfterSeconds: seconds,
      };
    }
    const limit = this.config.rateLimitPerMinute;
    if (limit > 0 && this.requests.add(bearer ? `token:${bearer.hash}` : `address:${client}`, now) > limit) {
      return {
        message: `Too many requests: at most ${limit} a minute per token`,
        retryAfterSeconds: CountsPerMinute.secondsLeft(now),
      };
    }
    return null;
  }

  /** The request's token was unknown or revoked. */
  signInFailed(request: LimitedRequest): void {
    const bearer = bearerOf(request);
    if (bearer) this.knownTokens.delete(bearer.hash);
    if (this.config.signInFailuresPerMinute > 0) this.failures.add(clientOf(request), this.clock.now().getTime());
  }

  /** The request's token was accepted. */
  signedIn(request: LimitedRequest): void {
    const bearer = bearerOf(request);
    if (!bearer || this.knownTokens.has(bearer.hash)) return;
    if (this.knownTokens.size >= KNOWN_TOKENS_MAX) this.knownTokens.clear();
    this.knownTokens.add(bearer.hash);
  }
}
