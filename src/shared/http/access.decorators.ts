import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
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

/** Never rate-limited: health checks, which a load balancer or an orchestrator polls from one address. */
export const Unlimited = () => SetMetadata(UNLIMITED, true);

export interface AuthenticatedRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  principal?: Principal;
}

/** The caller of the current request, as the guard found it. */
export const Caller = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>().principal,
);
