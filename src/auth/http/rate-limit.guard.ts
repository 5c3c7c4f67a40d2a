import { CanActivate, ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UNLIMITED } from '../../shared/http/access.decorators.js';
import { RequestLimits } from './request-limits.js';

/** Every route but the @Unlimited ones passes this node's RequestLimits first: 429 with Retry-After beyond them. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RequestLimits,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(UNLIMITED, [context.getHandler(), context.getClass()])) return true;
    const http = context.switchToHttp();
    const refusal = this.limits.refusal(http.getRequest<FastifyRequest>());
    if (!refusal) return true;
    void http.getResponse<FastifyReply>().header('retry-after', String(refusal.retryAfterSeconds));
    throw new HttpException(refusal.message, HttpStatus.TOO_MANY_REQUESTS);
  }
}
