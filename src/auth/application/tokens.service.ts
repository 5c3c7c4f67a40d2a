import { timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Page, PageRequest } from '../../shared/application/page.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { ApiToken, hashSecret } from '../domain/api-token.js';
import { Principal } from '../../shared/domain/principal.js';
import type { Role } from '../../shared/domain/role.js';
import { TokenRepository } from './token.repository.js';

export class UnsafeBindError extends Error {}

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
  ) {
    this.adminHash = config.adminToken ? Buffer.from(hashSecret(config.adminToken), 'hex') : null;
  }

  async issue(name: unknown, role: unknown): Promise<{ token: ApiToken; secret: string }> {
    const issued = ApiToken.issue(name, role, this.clock.now());
    await this.tokens.insert(issued.token);
    return issued;
  }

  list(page: PageRequest): Promise<Page<ApiToken>> {
    return this.tokens.list(page);
  }

  /** Revoked at once on every node: every request looks its token up. */
  async revoke(id: string): Promise<void> {
    if (!(await this.tokens.revoke(id, this.clock.now()))) throw new NotFoundError(`Token ${id} not found`);
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
    return token ? tokenPrincipal(token.id, token.name, token.role) : null;
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
