/** Each role includes the ones before it. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Whether `held` includes `needed`; no role includes nothing. */
export function roleIncludes(held: Role | null, needed: Role): boolean {
  return held !== null && ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/** The stronger of two roles. */
export function strongerRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/** The weaker of two roles. */
export function weakerRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) <= ROLES.indexOf(b) ? a : b;
}
