import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { Role, ROLES } from '../../shared/domain/role.js';

export interface ApiTokenProps {
  id: string;
  name: string;
  role: Role;
  /** SHA-256 of the secret: the secret itself is never stored. */
  tokenHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** A personal token's person (null: an organisation-wide token). */
  userId: string | null;
  /** A personal token's team: its role holds there, and at most the person's own role there. */
  team: string | null;
  /** When it stops working (a personal token always has one). */
  expiresAt: Date | null;
}

const PREFIX = 'orbit_';
/** The longest a personal token may live. */
export const PERSONAL_TOKEN_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** The hash under which a secret is stored and looked up. 256 random bits need no slow hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || [...name.trim()].length > 100 || name.includes('\u0000')) {
    throw new InvalidArgumentError('name must be 1 to 100 characters', 'name');
  }
  return name.trim();
}

function checkRole(role: unknown): Role {
  if (!ROLES.includes(role as Role)) throw new InvalidArgumentError(`role must be one of ${ROLES.join(', ')}`, 'role');
  return role as Role;
}

/** A bearer token: a name, a role, and a secret shown once when it is issued. */
export class ApiToken {
  private constructor(private props: ApiTokenProps) {}

  /**
   * Issues an organisation-wide token, or with `team` a team's token (expiring or not); the
   * returned secret exists only in this answer.
   */
  static issue(
    name: unknown,
    role: unknown,
    now: Date,
    team: string | null = null,
    expiresAt: Date | null = null,
  ): { token: ApiToken; secret: string } {
    if (expiresAt !== null && expiresAt <= now)
      throw new InvalidArgumentError('expiresAt must be in the future', 'expiresAt');
    return ApiToken.mint(checkName(name), checkRole(role), now, null, team, expiresAt);
  }

  /**
   * Issues a person's token for one team, expiring at `expiresAt` (after now, within a year); the
   * caller checks that the role is at most the person's own in that team.
   */
  static issuePersonal(
    name: unknown,
    role: unknown,
    now: Date,
    owner: { userId: string; team: string },
    expiresAt: unknown,
  ): { token: ApiToken; secret: string } {
    const checkedName = checkName(name);
    const checkedRole = checkRole(role);
    const expiry = typeof expiresAt === 'string' ? new Date(expiresAt) : expiresAt;
    if (!(expiry instanceof Date) || Number.isNaN(expiry.getTime())) {
      throw new InvalidArgumentError(
        'expiresAt must be an ISO 8601 instant (a personal token always expires)',
        'expiresAt',
      );
    }
    if (expiry <= now || expiry.getTime() - now.getTime() > PERSONAL_TOKEN_MAX_DAYS * DAY_MS) {
      throw new InvalidArgumentError(
        `expiresAt must be in the future and at most ${PERSONAL_TOKEN_MAX_DAYS} days ahead`,
        'expiresAt',
      );
    }
    return ApiToken.mint(checkedName, checkedRole, now, owner.userId, owner.team, expiry);
  }

  private static mint(
    name: string,
    role: Role,
    now: Date,
    userId: string | null,
    team: string | null,
    expiresAt: Date | null,
  ): { token: ApiToken; secret: string } {
    const secret = PREFIX + randomBytes(32).toString('base64url');
    const token = new ApiToken({
      id: randomUUID(),
      name,
      role,
      tokenHash: hashSecret(secret),
      createdAt: now,
      revokedAt: null,
      userId,
      team,
      expiresAt,
    });
    return { token, secret };
  }

  static restore(props: ApiTokenProps): ApiToken {
    return new ApiToken({ ...props });
  }

  toProps(): ApiTokenProps {
    return { ...this.props };
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get role(): Role {
    return this.props.role;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get userId(): string | null {
    return this.props.userId;
  }
  get team(): string | null {
    return this.props.team;
  }
  get expiresAt(): Date | null {
    return this.props.expiresAt;
  }

  /** Whether it still works at `now` (revocation is looked up apart). */
  liveAt(now: Date): boolean {
    return this.props.expiresAt === null || this.props.expiresAt > now;
  }
}
