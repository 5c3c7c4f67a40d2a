import type { Role } from './role.js';

/** A team the caller has a role in. */
export interface TeamRole {
  name: string;
  role: Role;
}

/**
 * Who is calling: a token, or a person (signed in through the OIDC issuer, or named by a trusted
 * proxy). The name is what the audit trail records.
 */
export interface Principal {
  kind: 'token' | 'user';
  /** null for a person and for the token set by ORBIT_ADMIN_TOKEN. */
  tokenId: string | null;
  /** The person's id (null for a token and for a person named by a trusted proxy). */
  userId: string | null;
  name: string;
  email: string | null;
  /**
   * The role the organisation-wide routes check. A token's own; a person's: admin for an Orbit
   * admin, else the role their grants give them in the team `default` (which owns everything
   * made before teams), null without one.
   */
  role: Role | null;
  /** An Orbit admin: manages everything, teams and grants included. */
  admin: boolean;
  teams: TeamRole[];
  /**
   * What authenticated the request. A browser sends a cookie (a session) or passes through a
   * proxy (a trusted header) with any request a page makes, so those must come from our origin
   * to change anything; a bearer token is sent only by whoever holds it.
   */
  via: 'bearer' | 'session' | 'header';
}

/** How the audit trail and a run's record name the caller: a token by its name, a person with their email. */
export function actorName(principal: Pick<Principal, 'kind' | 'name' | 'email'>): string {
  return principal.kind === 'user' && principal.email && principal.email !== principal.name
    ? `${principal.name} <${principal.email}>`
    : principal.name;
}
