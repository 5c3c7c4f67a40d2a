import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { OrbitConfig } from '../../config/orbit-config.js';
import { PeopleService } from '../application/people.service.js';
import { TokensService } from '../application/tokens.service.js';
import type { Principal } from '../../shared/domain/principal.js';
import { Role, roleIncludes } from '../../shared/domain/role.js';
import {
  AuthenticatedRequest,
  MIN_ROLE,
  ORGANISATION_TOKEN,
  PEOPLE_BY_ROUTE,
  PUBLIC,
  SIGNED_IN,
} from '../../shared/http/access.decorators.js';
import { bearerOf } from './bearer.js';
import { isTrustedProxy } from './client-address.js';
import { RequestLimits } from './request-limits.js';
import { cookieOf, SESSION_COOKIE } from './session-cookie.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type GuardedRequest = AuthenticatedRequest & { socket?: { remoteAddress?: string } };

/**
 * Every endpoint needs a caller (401) with a role that includes the endpoint's (403). The caller
 * is, in this order: `Authorization: Bearer <token>`; the session cookie of a person signed in
 * through the issuer; the person a trusted proxy names in ORBIT_TRUSTED_USER_HEADER (from
 * ORBIT_TRUSTED_PROXIES only; from anywhere else the header is ignored). A browser sends the
 * cookie, and passes through the proxy, with whatever request a page makes, so a change by a
 * session or a proxy's person must come from ORBIT_PUBLIC_URL's origin (403 otherwise). Each
 * unknown or revoked token counts against its client address (see RequestLimits).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly origin: string;

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly people: PeopleService,
    private readonly limits: RequestLimits,
    private readonly config: OrbitConfig,
  ) {
    this.origin = new URL(config.publicUrl).origin;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const principal = await this.callerOf(request);
    if (principal.via !== 'bearer' && !SAFE_METHODS.has(request.method)) this.sameOrigin(request);
    request.principal = principal;
    if (this.reflector.getAllAndOverride<boolean>(SIGNED_IN, targets)) return true;
    if (principal.kind === 'user' && this.reflector.getAllAndOverride<boolean>(PEOPLE_BY_ROUTE, targets)) return true;
    const needed =
      this.reflector.getAllAndOverride<Role>(MIN_ROLE, targets) ?? (request.method === 'GET' ? 'viewer' : 'admin');
    if (!roleIncludes(principal.role, needed)) throw new ForbiddenException(refusal(principal, needed));
    const organisationWide = principal.kind === 'token' && principal.teams.length === 0;
    if (!organisationWide && this.reflector.getAllAndOverride<boolean>(ORGANISATION_TOKEN, targets)) {
      throw new ForbiddenException(
        'This spans every team, so it needs an organisation-wide token (a person, or a team token, sees only their teams)',
      );
    }
    return true;
  }

  private async callerOf(request: GuardedRequest): Promise<Principal> {
    const bearer = bearerOf(request);
    if (bearer) {
      const principal = await this.tokens.authenticate(bearer.secret, bearer.hash);
      if (!principal) {
        this.limits.signInFailed(request);
        throw new UnauthorizedException('Unknown or revoked token');
      }
      this.limits.signedIn(request);
      return principal;
    }
    const session = cookieOf(request, SESSION_COOKIE);
    if (session !== undefined) {
      const principal = await this.people.bySession(session);
      if (!principal)
        throw new UnauthorizedException('Your session ended (signed out, expired or removed): sign in again');
      return principal;
    }
    const named = this.proxyNamed(request);
    if (named) return named;
    throw new UnauthorizedException('Missing bearer token: send Authorization: Bearer <token>, or sign in');
  }

  /** The person a trusted proxy names, when the request came from one of ORBIT_TRUSTED_PROXIES. */
  private proxyNamed(request: GuardedRequest): Promise<Principal> | null {
    const { trustedUserHeader, trustedGroupsHeader, trustedProxies } = this.config;
    if (!trustedUserHeader || !isTrustedProxy(request.socket?.remoteAddress, trustedProxies)) return null;
    const user = single(request.headers[trustedUserHeader])?.trim();
    if (!user) return null;
    const groups = trustedGroupsHeader
      ? (single(request.headers[trustedGroupsHeader]) ?? '')
          .split(',')
          .map((group) => group.trim())
          .filter(Boolean)
      : [];
    return this.people.byHeaders(user, groups);
  }

  private sameOrigin(request: GuardedRequest): void {
    const origin = single(request.headers.origin);
    if (origin === this.origin) return;
    throw new ForbiddenException(
      `A change made through a browser session must come from ${this.origin} ` +
        (origin ? `(this one came from ${origin})` : '(this one named no Origin)') +
        '; scripts and tools use a bearer token instead',
    );
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function refusal(principal: Principal, needed: Role): string {
  if (principal.kind === 'token')
    return `This needs the ${needed} role; token '${principal.name}' has ${principal.role}`;
  if (principal.role === null) {
    return `This needs the ${needed} role; ${principal.name} has no role here yet: ask an Orbit admin to grant one of your groups a role`;
  }
  return `This needs the ${needed} role; ${principal.name} has ${principal.role}`;
}
