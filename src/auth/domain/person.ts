import { strongestRole, type Principal, type TeamRole } from '../../shared/domain/principal.js';
import { Role, strongerRole } from '../../shared/domain/role.js';

/** What a grant names: an issuer's group, or one person (by email or user name). */
export type GrantKind = 'group' | 'user';

export interface Grant {
  team: string;
  kind: GrantKind;
  subject: string;
  role: Role;
}

/** A person as the issuer (or a trusted proxy) described them at sign-in. */
export interface PersonClaims {
  name: string;
  email: string | null;
  username: string | null;
  groups: string[];
}

/** What a user grant may name the person by: their email and user name, compared without case. */
export function personKeys(person: Pick<PersonClaims, 'email' | 'username'>): string[] {
  return [...new Set([person.email, person.username].filter((key): key is string => !!key).map(lower))];
}

const lower = (text: string) => text.toLowerCase();

/** Whether a grant names this person or one of their groups. */
export function grantApplies(grant: Grant, person: PersonClaims): boolean {
  return grant.kind === 'group'
    ? person.groups.includes(grant.subject)
    : personKeys(person).includes(lower(grant.subject));
}

/** The person's role in each team: the strongest of the grants that apply, teams by name. */
export function teamRoles(grants: readonly Grant[], person: PersonClaims): TeamRole[] {
  const roles = new Map<string, Role>();
  for (const grant of grants) {
    if (!grantApplies(grant, person)) continue;
    const held = roles.get(grant.team);
    roles.set(grant.team, held ? strongerRole(held, grant.role) : grant.role);
  }
  return [...roles].sort(([a], [b]) => a.localeCompare(b)).map(([name, role]) => ({ name, role }));
}

/**
 * The caller a person is: an Orbit admin when one of their groups is an admin group (admin of
 * every team then), else what their grants give them.
 */
export function personPrincipal(
  person: PersonClaims & { userId: string | null },
  grants: readonly Grant[],
  adminGroups: readonly string[],
  via: Principal['via'],
): Principal {
  const admin = person.groups.some((group) => adminGroups.includes(group));
  const teams = teamRoles(grants, person);
  const role = admin ? 'admin' : strongestRole(teams);
  return {
    kind: 'user',
    tokenId: null,
    userId: person.userId,
    name: person.name,
    email: person.email,
    role,
    admin,
    teams,
    via,
  };
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/**
 * A person from an issuer's claims (the ID token's and the userinfo answer's): the name to show
 * (name, else user name, else email, else subject), and the groups of `groupsClaim`, which
 * issuers give as a list of strings (or, some, as one comma-separated string).
 */
export function claimsOfPerson(claims: Record<string, unknown>, groupsClaim: string): PersonClaims {
  const email = text(claims.email);
  const username = text(claims.preferred_username);
  const raw = claims[groupsClaim];
  const groups = Array.isArray(raw)
    ? raw.map(text).filter((group): group is string => group !== null)
    : (text(raw)
        ?.split(',')
        .map((group) => group.trim())
        .filter(Boolean) ?? []);
  return {
    name: text(claims.name) ?? username ?? email ?? String(claims.sub),
    email,
    username,
    groups: [...new Set(groups)],
  };
}
