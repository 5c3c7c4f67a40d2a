import { Role, roleIncludes, strongerRole } from './role.js';

/** The team every job, channel and group made before teams belongs to, and a new one when no team is named. */
export const DEFAULT_TEAM = 'default';

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
   * The strongest role the caller holds anywhere, which a route's least role is checked against
   * first: a token's own; a person's admin for an Orbit admin, else the strongest their grants
   * give them in any team, null without one. What a route reaches in a team is then checked
   * against the role there (roleInTeam).
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

/** Whether the caller sees every team: an Orbit admin, or an organisation-wide token. */
export function seesEveryTeam(caller: Principal): boolean {
  return caller.admin || (caller.kind === 'token' && caller.teams.length === 0);
}

/** The team a caller means when they name none: `default` for one who sees every team, else their only team; null when they are in several or none. */
export function impliedTeam(caller: Principal): string | null {
  if (seesEveryTeam(caller)) return DEFAULT_TEAM;
  return caller.teams.length === 1 ? caller.teams[0]!.name : null;
}

/** The teams whose jobs, runs, channels and groups the caller sees; null: every team. */
export function visibleTeams(caller: Principal): string[] | null {
  return seesEveryTeam(caller) ? null : caller.teams.map((team) => team.name);
}

/** The caller's role in a team: an Orbit admin's is admin, an organisation-wide token's its own; null: none (the team is not theirs). */
export function roleInTeam(caller: Principal, team: string): Role | null {
  if (caller.admin) return 'admin';
  if (seesEveryTeam(caller)) return caller.role;
  return caller.teams.find((held) => held.name === team)?.role ?? null;
}

/** Whether the caller holds `needed` (or stronger) in the team. */
export function holdsInTeam(caller: Principal, team: string, needed: Role): boolean {
  return roleIncludes(roleInTeam(caller, team), needed);
}

/** The strongest role among some teams' (null for none). */
export function strongestRole(teams: readonly TeamRole[]): Role | null {
  return teams.reduce<Role | null>((held, team) => (held ? strongerRole(held, team.role) : team.role), null);
}

/**
 * The teams a list answers for: the caller's (undefined when they see every team), narrowed to
 * `only` when the caller asks for one team (an empty list when it is not theirs).
 */
export function teamsToShow(caller: Principal, only?: string): string[] | undefined {
  const visible = visibleTeams(caller);
  if (only === undefined) return visible ?? undefined;
  return visible === null || visible.includes(only) ? [only] : [];
}
