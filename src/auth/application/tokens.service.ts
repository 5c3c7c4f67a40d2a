import { timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Page, PageRequest } from '../../shared/application/page.js';
import { Clock } from '../../shared/domain/clock.js';
import { ForbiddenError, InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { ApiToken, hashSecret } from '../domain/api-token.js';
import { Principal } from '../../shared/domain/principal.js';
import { Role, roleIncludes, ROLES, weakerRole } from '../../shared/domain/role.js';
import { impliedTeam, roleInTeam } from '../../shared/domain/principal.js';
import { canSeeTeam, checkTeamName } from '../domain/team-access.js';
import { PeopleRepository } from './people.repository.js';
import { TeamRepository } from './team.repository.js';
import { TokenRepository } from './token.repository.js';

export class UnsafeBindError extends Error {}

/** Organisation-wide tokens are managed by admins: an Orbit admin, or an admin token. */
function mustAdminister(caller: Principal): void {
  if (caller.admin) return;
  const who =
    caller.kind === 'token'
      ? `token '${caller.name}' has ${caller.role ?? 'no role'}`
      : `${caller.name} is no Orbit admin`;
  throw new ForbiddenError(`This needs the admin role; ${who}`);
}

/** A team token's expiry: none, or an instant. */
function expiryOf(given: unknown): Date | null {
  if (given === undefined || given === null) return null;
  const expiry = new Date(given as string);
  if (typeof given !== 'string' || Number.isNaN(expiry.getTime())) {
    throw new InvalidArgumentError('expiresAt must be an ISO 8601 instant', 'expiresAt');
  }
  return expiry;
}

/** The caller of `npm run orbit -- token …`, which works on the database directly: an admin. */
export const DATABASE_OWNER: Principal = tokenPrincipal(null, 'token command', 'admin');

/** An organisation-wide token: its role holds in every team; an admin token is an Orbit admin. */
function tokenPrincipal(tokenId: string | null, name: string, role: Role): Principal {
  return {
    kind: 'token',
    tokenId,
    userId: null,
    name,
    email: null,
    role,
    admin: role === 'admin',
    teams: [],
    via: 'bearer',
  };
}

/** A team's token: its role holds in its team only. */
function teamTokenPrincipal(token: ApiToken, team: string): Principal {
  return {
    ...tokenPrincipal(token.id, token.name, token.role),
    admin: false,
    teams: [{ name: team, role: token.role }],
  };
}

/** What POST /tokens is given. */
export interface TokenRequest {
  name: unknown;
  role: unknown;
  team?: unknown;
  expiresAt?: unknown;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

@Injectable()
export class TokensService {
  private readonly logger = new Logger('Auth');
  /** SHA-256 of ORBIT_ADMIN_TOKEN, computed once: requests compare hashes, in constant time. */
  private readonly adminHash: Buffer | null;

  constructor(
    private readonly tokens: TokenRepository,
    private readonly clock: Clock,
    private readonly config: OrbitConfig,
    private readonly people: PeopleRepository,
    private readonly teams: TeamRepository,
  ) {
    this.adminHash = config.adminToken ? Buffer.from(hashSecret(config.adminToken), 'hex') : null;
  }

  async issue(name: unknown, role: unknown): Promise<{ token: ApiToken; secret: string }> {
    const issued = ApiToken.issue(name, role, this.clock.now());
    await this.tokens.insert(issued.token);
    return issued;
  }

  /**
   * A token for the caller. An organisation-wide admin token (or an Orbit admin) issues
   * organisation-wide tokens, or with `team` a team's token. A person issues a personal token:
   * bound to them and to one of their teams (their only one, unless named), with at most their own
   * role there and an expiry; it stops working when they lose that role.
   */
  async create(caller: Principal, request: TokenRequest): Promise<{ token: ApiToken; secret: string }> {
    const now = this.clock.now();
    let issued: { token: ApiToken; secret: string };
    if (caller.kind === 'token' || !caller.userId) {
      mustAdminister(caller);
      const team = request.team === undefined ? null : await this.existingTeam(request.team);
      issued = ApiToken.issue(request.name, request.role, now, team, expiryOf(request.expiresAt));
    } else {
      const team = await this.personalTeam(caller, request.team);
      const held = roleInTeam(caller, team)!;
      if (ROLES.includes(request.role as Role) && !roleIncludes(held, request.role as Role)) {
        throw new ForbiddenError(`A personal token has at most your own role in ${team}: ${held}`);
      }
      issued = ApiToken.issuePersonal(
        request.name,
        request.role,
        now,
        { userId: caller.userId, team },
        request.expiresAt,
      );
    }
    await this.tokens.insert(issued.token);
    return issued;
  }

  /** Every live token for an Orbit admin (or an organisation-wide admin token); a person's own for a person. */
  list(caller: Principal, page: PageRequest): Promise<Page<ApiToken>> {
    if (caller.admin) return this.tokens.list(page);
    if (caller.kind === 'user' && caller.userId) return this.tokens.list(page, caller.userId);
    mustAdminister(caller);
    return this.tokens.list(page);
  }

  /** Revoked at once on every node: every request looks its token up. A person revokes their own. */
  async revoke(caller: Principal, id: string): Promise<void> {
    const own = !caller.admin && caller.kind === 'user' ? caller.userId : null;
    if (!own) mustAdminister(caller);
    if (!(await this.tokens.revoke(id, this.clock.now(), own ?? undefined)))
      throw new NotFoundError(`Token ${id} not found`);
  }

  private async existingTeam(given: unknown): Promise<string> {
    const team = checkTeamName(given);
    if (!(await this.teams.exists(team))) throw new NotFoundError(`Team ${team} not found`, 'team');
    return team;
  }

  /** The team a person's token is for: the one named (among theirs), else their only one. */
  private async personalTeam(caller: Principal, given: unknown): Promise<string> {
    if (given === undefined) {
      const implied = impliedTeam(caller);
      if (implied) return implied;
      throw new InvalidArgumentError(
        caller.teams.length === 0
          ? 'You have no role in any team yet, so no token can have one: ask an Orbit admin for a grant'
          : `team is needed: you are in ${caller.teams.map((held) => held.name).join(', ')}`,
        'team',
      );
    }
    const team = checkTeamName(given);
    if (!canSeeTeam(caller, team) || !(await this.teams.exists(team))) {
      throw new NotFoundError(`Team ${team} not found`, 'team');
    }
    return team;
  }

  /**
   * The caller behind a bearer secret, or null for an unknown or revoked one. `hash` is the
   * secret's hashSecret, when the caller has it already.
   */
  async authenticate(secret: string, hash = hashSecret(secret)): Promise<Principal | null> {
    if (this.adminHash && timingSafeEqual(Buffer.from(hash, 'hex'), this.adminHash)) {
      return tokenPrincipal(null, 'ORBIT_ADMIN_TOKEN', 'admin');
    }
    const token = await this.tokens.findLiveByHash(hash);
    if (!token || !token.liveAt(this.clock.now())) return null;
    if (token.userId) return this.personal(token, token.userId, token.team!);
    return token.team ? teamTokenPrincipal(token, token.team) : tokenPrincipal(token.id, token.name, token.role);
  }

  /**
   * A personal token stands for its person, with the weaker of its role and the person's role in
   * its team now (from their groups at their last sign-in and today's grants); null once the
   * person was removed or holds no role there any more.
   */
  private async personal(token: ApiToken, userId: string, team: string): Promise<Principal | null> {
    const user = await this.people.findUser(userId);
    if (!user || user.removedAt) return null;
    const person = await this.teams.personAsCaller({ ...user, userId }, this.config.adminGroups, 'bearer');
    const held = roleInTeam(person, team);
    if (!held) return null;
    const role = weakerRole(held, token.role);
    return {
      ...person,
      tokenId: token.id,
      role,
      admin: person.admin && token.role === 'admin',
      teams: [{ name: team, role }],
    };
  }

  /**
   * First start: with no ORBIT_ADMIN_TOKEN and no token yet, issue an admin token and print it
   * once. Listening beyond loopback with no token at all is refused.
   */
  async ensureAccess(host: string): Promise<void> {
    if (this.config.adminToken) return;
    await this.tokens.exclusively(async () => {
      if ((await this.tokens.countLive()) > 0) return;
      if (!LOOPBACK.test(host)) {
        throw new UnsafeBindError(
          `Refusing to listen on ${host} with no API token configured: anyone reaching the port could run commands. ` +
            'Set ORBIT_ADMIN_TOKEN, or create a token first (npm run orbit -- token create --name admin --role admin).',
        );
      }
      const { secret } = await this.issue('first-admin', 'admin');
      this.logger.warn('Created the first admin token; it is printed once on stderr, outside the log');
      // deliberately not a log line: log lines are shipped and kept, this secret must not be
      const address = `http://${host}:${this.config.port}`;
      process.stderr.write(
        `\nOrbit: the first admin token (shown once, store it now): ${secret}\n` +
          `Sign in with it to the dashboard at ${address}/ui/\n` +
          `or use it as: curl -H 'Authorization: Bearer ${secret}' ${address}/jobs\n\n`,
      );
    });
  }
}
