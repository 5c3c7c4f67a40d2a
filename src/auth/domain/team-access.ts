import { ForbiddenError, InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { roleInTeam, type Principal } from '../../shared/domain/principal.js';
import { Role, ROLES } from '../../shared/domain/role.js';
import type { Grant, GrantKind } from './person.js';

const TEAM_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const KINDS: readonly GrantKind[] = ['group', 'user'];

/** Whether the caller may know the team exists: an Orbit admin, an organisation-wide token, or one of its members. */
export function canSeeTeam(caller: Principal, team: string): boolean {
  return roleInTeam(caller, team) !== null;
}

/** Whether the caller manages the team's grants: an Orbit admin, or an admin of that team. */
export function canAdministerTeam(caller: Principal, team: string): boolean {
  return caller.admin || caller.teams.some((held) => held.name === team && held.role === 'admin');
}

export function checkTeamName(name: unknown): string {
  if (typeof name !== 'string' || !TEAM_NAME.test(name)) {
    throw new InvalidArgumentError(
      'name must be 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit (e.g. payments)',
      'name',
    );
  }
  return name;
}

export function mustBeOrbitAdmin(caller: Principal, doing: string): void {
  if (!caller.admin)
    throw new ForbiddenError(`Only an Orbit admin may ${doing}: this needs the admin role across the organisation`);
}

/**
 * A team's grants as given, checked all at once (every mistake named by its place): a user grant
 * names a person by email or user name, kept in lower case; one subject is granted once.
 */
export function checkGrants(team: string, given: unknown): Grant[] {
  if (!Array.isArray(given)) throw new InvalidArgumentError('grants must be a list of {kind, subject, role}', 'grants');
  const mistakes: string[] = [];
  const seen = new Set<string>();
  const grants: Grant[] = [];
  given.forEach((raw: unknown, index) => {
    const at = `grants[${index}]`;
    const item = (raw ?? {}) as Record<string, unknown>;
    const kind = item.kind as GrantKind;
    const role = item.role as Role;
    const subject = typeof item.subject === 'string' ? item.subject.trim() : '';
    if (!KINDS.includes(kind)) mistakes.push(`${at}.kind must be one of ${KINDS.join(', ')}`);
    if (subject === '' || subject.length > 200) mistakes.push(`${at}.subject must be 1 to 200 characters`);
    if (!ROLES.includes(role)) mistakes.push(`${at}.role must be one of ${ROLES.join(', ')}`);
    const key = `${kind}:${kind === 'user' ? subject.toLowerCase() : subject}`;
    if (seen.has(key)) mistakes.push(`${at} grants ${kind} '${subject}' a second time: one role per ${kind}`);
    seen.add(key);
    grants.push({ team, kind, subject: kind === 'user' ? subject.toLowerCase() : subject, role });
  });
  if (mistakes.length > 0) throw new InvalidArgumentError(mistakes.join('; '), 'grants');
  return grants;
}
