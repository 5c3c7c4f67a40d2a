import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TokensService } from '../application/tokens.service.js';
import { Role, roleIncludes } from '../../shared/domain/role.js';
import { AuthenticatedRequest, MIN_ROLE, PUBLIC } from '../../shared/http/access.decorators.js';
import { bearerOf } from './bearer.js';
import { RequestLimits } from './request-limits.js';

/**
 * Every endpoint needs `Authorization: Bearer <token>` (401) with a role that includes the
 * endpoint's (403). Each unknown or revoked token counts against its client address (see RequestLimits).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly limits: RequestLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const bearer = bearerOf(request);
    if (!bearer) throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <token>');
    const principal = await this.tokens.authenticate(bearer.secret, bearer.hash);
    if (!principal) {
      this.limits.signInFailed(request);
      throw new UnauthorizedException('Unknown or revoked token');
    }
    this.limits.signedIn(request);
    const needed =
      this.reflector.getAllAndOverride<Role>(MIN_ROLE, targets) ?? (request.method === 'GET' ? 'viewer' : 'admin');
    if (!roleIncludes(principal.role, needed)) {
      throw new ForbiddenException(`This needs the ${needed} role; token '${principal.name}' has ${principal.role}`);
    }
    request.principal = principal;
    return true;
  }
}
