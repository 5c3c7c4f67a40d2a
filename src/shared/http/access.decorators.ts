import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Owned } from '../application/team-owners.js';
import type { Principal } from '../domain/principal.js';
import type { Role } from '../domain/role.js';

/*
 * Who may call a route, as metadata: any module marks its routes with these, and the auth
 * module's guards read them (and set the caller), so no module depends on auth to be guarded.
 */
export const MIN_ROLE = 'orbit:min-role';
export const PUBLIC = 'orbit:public';
export const UNLIMITED = 'orbit:unlimited';
export const SIGNED_IN = 'orbit:signed-in';
export const PEOPLE_BY_ROUTE = 'orbit:people-by-route';
export const ORGANISATION_TOKEN = 'orbit:organisation-token';
export const TEAMS = 'orbit:teams';

/** The least role an endpoint needs. Without it: GET needs `viewer`, anything else `admin`. */
export const MinRole = (role: Role) => SetMetadata(MIN_ROLE, role);

/** Reachable without a token (health checks). */
export const Public = () => SetMetadata(PUBLIC, true);

/** Any caller, whatever its role or lack of one (who may still ask who they are). */
export const SignedIn = () => SetMetadata(SIGNED_IN, true);

/**
 * A person passes once signed in, whatever their role: the route checks what they may do in
 * each team (their own tokens, the teams they administer). A token still needs the route's role.
 */
export const PeopleCheckedByRoute = () => SetMetadata(PEOPLE_BY_ROUTE, true);

/** Only an organisation-wide token, besides the route's role: what the route shows spans every team. */
export const OrganisationTokenOnly = () => SetMetadata(ORGANISATION_TOKEN, true);

/**
 * How a route keeps to the caller's teams; every guarded route says one (a test holds them to it).
 * - `owned`: the route is about one thing, named by a path parameter; the guard finds its team:
 *   a thing of a team the caller is not in answers 404 as if it did not exist, and the route's
 *   least role is checked against the caller's role in that team.
 * - `new`: the route makes something in a team: the body's `team`, else the caller's only team
 *   (the guard checks the caller's role there; `OwningTeam` gives it to the route).
 * - `filtered`: the route answers only what belongs to the caller's teams (it reads `visibleTeams`).
 * - `organisation`: the route spans every team: an Orbit admin or an organisation-wide token only.
 * - `own`: the route checks per team itself (tokens, teams, the caller), or names nothing of a team.
 */
export type TeamRule =
  | { kind: 'owned'; owner: Owned; param: string }
  | { kind: 'new' }
  | { kind: 'filtered' }
  | { kind: 'organisation' }
  | { kind: 'own' };

export const OwnedBy = (owner: Owned, param = 'id') =>
  SetMetadata(TEAMS, { kind: 'owned', owner, param } satisfies TeamRule);
export const NewInTeam = () => SetMetadata(TEAMS, { kind: 'new' } satisfies TeamRule);
export const TeamFiltered = () => SetMetadata(TEAMS, { kind: 'filtered' } satisfies TeamRule);
export const OrganisationWide = () => SetMetadata(TEAMS, { kind: 'organisation' } satisfies TeamRule);
export const TeamsCheckedByRoute = () => SetMetadata(TEAMS, { kind: 'own' } satisfies TeamRule);

/** Never rate-limited: health checks, which a load balancer or an orchestrator polls from one address. */
export const Unlimited = () => SetMetadata(UNLIMITED, true);

export interface AuthenticatedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  principal?: Principal;
  /** The team a route marked NewInTeam makes its thing in, or an owned thing's team, as the guard found it. */
  team?: string;
}

/** The caller of the current request, as the guard found it. */
export const Caller = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>().principal,
);

/** The team the guard found for the route (see TeamRule): the new thing's, or the owned thing's. */
export const OwningTeam = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>().team,
);
