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
}

const PREFIX = 'orbit_';

/** The hash under which a secret is stored and looked up. 256 random bits need no slow hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A bearer token: a name, a role, and a secret shown once when it is issued. */
export class ApiToken {
  private constructor(private props: ApiTokenProps) {}

  /** Issues a token; the returned secret exists only in this answer. */
  static issue(name: unknown, role: unknown, now: Date): { token: ApiToken; secret: string } {
    if (typeof name !== 'string' || name.trim() === '' || [...name.trim()].length > 100 || name.includes('\u0000')) {
      throw new InvalidArgumentError('name must be 1 to 100 characters', 'name');
    }
    if (!ROLES.includes(role as Role)) {
      throw new InvalidArgumentError(`role must be one of ${ROLES.join(', ')}`, 'role');
    }
    const secret = PREFIX + randomBytes(32).toString('base64url');
    const token = new ApiToken({
      id: randomUUID(),
      name: name.trim(),
      role: role as Role,
      tokenHash: hashSecret(secret),
      createdAt: now,
      revokedAt: null,
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
}
