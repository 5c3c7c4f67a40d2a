import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { OrbitConfig } from '../../config/orbit-config.js';
import { PeopleService } from '../application/people.service.js';
import { TokensService } from '../application/tokens.service.js';
import { Owned, TeamOwners } from '../../shared/application/team-owners.js';
import { ForbiddenError, InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { holdsInTeam, impliedTeam, roleInTeam, seesEveryTeam, type Principal } from '../../shared/domain/principal.js';
import { Role, roleIncludes } from '../../shared/domain/role.js';
import {
  AuthenticatedRequest,
  MIN_ROLE,
  ORGANISATION_TOKEN,
  PEOPLE_BY_ROUTE,
  PUBLIC,
  SIGNED_IN,
  TEAMS,
  TeamRule,
} from '../../shared/http/access.decorators.js';
import { TeamRepository } from '../application/team.repository.js';
import { bearerOf } from './bearer.js';
import { isTrustedProxy } from './client-address.js';
import { RequestLimits } from './request-limits.js';
import { cookieOf, SESSION_COOKIE } from './session-cookie.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type GuardedRequest = AuthenticatedRequest & { socket?: { remoteAddress?: string }; body?: unknown };

/** How a route answers for a thing that does not exist, which is also how it answers for another team's. */
const NOT_FOUND: Record<Owned, (id: string) => string> = {
  job: (id) => `Job ${id} not found`,
  execution: (id) => `Execution ${id} not found`,
  channel: (id) => `Channel ${id} not found`,
  group: (id) => `Concurrency group ${id} not found`,
};

/**
 * Every endpoint needs a caller (401) with a role that includes the endpoint's (403). The caller
 * is, in this order: `Authorization: Bearer <token>`; the session cookie of a person signed in
 * through the issuer; the person a trusted proxy names in ORBIT_TRUSTED_USER_HEADER (from
 * ORBIT_TRUSTED_PROXIES only; from anywhere else the header is ignored). A browser sends the
 * cookie, and passes through the proxy, with whatever request a page makes, so a change by a
 * session or a proxy's person must come from ORBIT_PUBLIC_URL's origin (403 otherwise). Each
 * unknown or revoked token counts against its client address (see RequestLimits).
 *
 * Then the route's TeamRule keeps the caller to their teams: another team's thing answers 404 as
 * a missing one does, and the route's least role is checked against the caller's role in the
 * thing's team.
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
    private readonly owners: TeamOwners,
    private readonly teams: TeamRepository,
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
    await this.keepToTeams(this.reflector.getAllAndOverride<TeamRule>(TEAMS, targets), request, principal, needed);
    return true;
  }

  private async keepToTeams(
    rule: TeamRule | undefined,
    request: GuardedRequest,
    caller: Principal,
    needed: Role,
  ): Promise<void> {
    switch (rule?.kind) {
      case 'filtered':
      case 'own':
        return;
      case 'owned': {
        const id = request.params[rule.param] ?? '';
        const team = await this.owners.teamOf(rule.owner, id);
        if (team === undefined) return; // no such thing: the route answers as it always did
        if (team === null ? !seesEveryTeam(caller) : roleInTeam(caller, team) === null) {
          throw new NotFoundError(NOT_FOUND[rule.owner](id));
        }
        if (team !== null) this.mayAct(caller, team, needed);
        request.team = team ?? undefined;
        return;
      }
      case 'new': {
        const team = await this.teamForNew(caller, request.body);
        this.mayAct(caller, team, needed);
        request.team = team;
        return;
      }
      default:
        if (!seesEveryTeam(caller)) {
          throw new ForbiddenException(
            `This spans every team, so it needs an Orbit admin or an organisation-wide token; ${caller.name} acts in ${teamList(caller)} only`,
          );
        }
    }
  }

  /** The team a new thing goes to: the body's `team`, else the caller's only team (`default` for one who sees every team). */
  private async teamForNew(caller: Principal, body: unknown): Promise<string> {
    const given = body !== null && typeof body === 'object' ? (body as { team?: unknown }).team : undefined;
    if (given === undefined || given === null) {
      const implied = impliedTeam(caller);
      if (implied) return implied;
      throw new InvalidArgumentError(
        `team is required: ${caller.name} is in ${teamList(caller)}; name the team that owns it`,
        'team',
      );
    }
    if (typeof given !== 'string') throw new InvalidArgumentError("team must be a team's name", 'team');
    if (roleInTeam(caller, given) === null || !(await this.teams.exists(given))) {
      throw new NotFoundError(`Team ${given} not found`, 'team');
    }
    return given;
  }

  private mayAct(caller: Principal, team: string, needed: Role): void {
    if (holdsInTeam(caller, team, needed)) return;
    throw new ForbiddenError(
      `This needs the ${needed} role in the team ${team}; ${caller.name} has ${roleInTeam(caller, team)} there`,
    );
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

function teamList(caller: Principal): string {
  return caller.teams.map((team) => team.name).join(', ') || 'no team';
}

function refusal(principal: Principal, needed: Role): string {
  if (principal.kind === 'token')
    return `This needs the ${needed} role; token '${principal.name}' has ${principal.role}`;
  if (principal.role === null) {
    return `This needs the ${needed} role; ${principal.name} has no role here yet: ask an Orbit admin to grant one of your groups a role`;
  }
  return `This needs the ${needed} role; ${principal.name} has ${principal.role}`;
}
