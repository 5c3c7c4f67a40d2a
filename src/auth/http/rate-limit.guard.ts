import { CanActivate, ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { AuthenticatedRequest } from './auth.decorators.js';
import { bearerOf } from './bearer.js';

const WINDOW_MS = 60_000;

/**
 * At most ORBIT_RATE_LIMIT_PER_MINUTE requests per token per minute on this node (a request
 * without a bearer token counts against its address); beyond that, 429 until the window turns.
 * Tokens are counted by their hash, which the auth guard then reuses (see bearerOf).
 * (@nestjs/throttler would do, but its CommonJS build cannot load NestJS 12 under Jest.)
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(private readonly config: OrbitConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const limit = this.config.rateLimitPerMinute;
    if (limit === 0) return true;
    const window = Math.floor(Date.now() / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const key = this.keyOf(context.switchToHttp().getRequest<AuthenticatedRequest & { ip?: string }>());
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    if (count > limit) {
      throw new HttpException(`Too many requests: at most ${limit} a minute per token`, HttpStatus.TOO_MANY_REQUESTS);
    }
    return true;
  }

  private keyOf(request: AuthenticatedRequest & { ip?: string }): string {
    const bearer = bearerOf(request);
    return bearer ? `token:${bearer.hash}` : `address:${request.ip ?? 'unknown'}`;
  }
}
