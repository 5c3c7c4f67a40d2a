import { createHash, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import type { Principal } from '../../shared/domain/principal.js';
import { hashSecret } from '../domain/api-token.js';
import { impliedTeam, roleInTeam } from '../../shared/domain/principal.js';
import { claimsOfPerson, PersonClaims } from '../domain/person.js';
import { newSessionSecret, SessionLifetimes, sessionLive, sessionNeedsTouch } from '../domain/session.js';
import { IssuedIdentity, OidcIssuer, SignInRefused } from './oidc-issuer.js';
import { PeopleRepository, User } from './people.repository.js';
import { TeamRepository } from './team.repository.js';
import { TokensService } from './tokens.service.js';

/** How long a started sign-in may take at the issuer. */
export const SIGN_IN_ATTEMPT_MS = 10 * 60_000;
/** How long the command line has to redeem its one-time code. */
const CLI_CODE_MS = 5 * 60_000;
/** How long the command line's token lives. */
export const CLI_TOKEN_DAYS = 30;

/** The answer to a command line's sign-in: the browser goes to the command line's loopback, with a one-time code. */
export interface CliHandover {
  redirectTo: string;
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The S256 challenge of a PKCE verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A command line's sign-in, when /auth/login was given its port and challenge (both, or neither). */
function cliOf(given: { port?: string; challenge?: string }): { port: number; challenge: string } | null {
  if (given.port === undefined && given.challenge === undefined) return null;
  const port = Number(given.port);
  const mistakes: string[] = [];
  if (!Number.isInteger(port) || port < 1024 || port > 65535)
    mistakes.push('cli_port must be a port from 1024 to 65535');
  if (!PKCE_CHALLENGE.test(given.challenge ?? ''))
    mistakes.push('cli_challenge must be an S256 PKCE challenge (43 characters of base64url)');
  if (mistakes.length > 0) throw new InvalidArgumentError(mistakes.join('; '), 'cli_port');
  return { port, challenge: given.challenge! };
}

/** A session made at the callback: its cookie's value, and how long the cookie may live. */
export interface NewSession {
  secret: string;
  maxAgeSeconds: number;
}

/**
 * People: sign-in through the OIDC issuer into sessions kept in the database, the caller a
 * session or a trusted proxy's headers stand for, sign-out, and removal.
 */
@Injectable()
export class PeopleService {
  private readonly logger = new Logger('SignIn');
  private readonly lifetimes: SessionLifetimes;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly people: PeopleRepository,
    private readonly teams: TeamRepository,
    private readonly issuer: OidcIssuer,
    private readonly tokens: TokensService,
  ) {
    this.lifetimes = { idleMs: config.sessionIdleMinutes * 60_000, maxMs: config.sessionMaxHours * 3_600_000 };
  }

  /** Where the issuer sends the browser back to. */
  get redirectUri(): string {
    return `${this.config.publicUrl}/auth/callback`;
  }

  /**
   * A new sign-in: the issuer's URL to send the browser to, and the state the browser keeps
   * meanwhile. `cli`: a sign-in for the command line, which listens on that loopback port and
   * will prove itself with the verifier of that PKCE challenge.
   */
  async begin(cli: { port?: string; challenge?: string } = {}): Promise<{ url: string; state: string }> {
    if (!this.config.oidc) {
      throw new NotFoundError(
        'Sign-in through an issuer is not set up here: set ORBIT_OIDC_ISSUER and ORBIT_OIDC_CLIENT_ID',
      );
    }
    const forCli = cliOf(cli);
    const started = await this.issuer.begin(this.redirectUri);
    await this.people.saveAttempt({
      state: started.state,
      nonce: started.nonce,
      codeVerifier: started.codeVerifier,
      createdAt: this.clock.now(),
      cli: forCli,
    });
    return { url: started.url, state: started.state };
  }

  /**
   * The issuer's answer: a session for the person, or SignInRefused. `browserState` is the state
   * this browser was given at the start (its cookie): an answer meant for another browser, or a
   * replayed one, finds no attempt.
   */
  async complete(callbackUrl: URL, browserState: string | undefined): Promise<NewSession | CliHandover> {
    const refused = callbackUrl.searchParams.get('error');
    if (refused) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new SignInRefused(`The issuer refused the sign-in: ${description ?? refused}`);
    }
    const state = callbackUrl.searchParams.get('state');
    if (!state) throw new SignInRefused('The answer from the issuer carries no state: start the sign-in again');
    if (browserState !== state) {
      throw new SignInRefused(
        'This sign-in was not started in this browser (its state does not match): start it again from the sign-in page',
      );
    }
    const now = this.clock.now();
    const attempt = await this.people.takeAttempt(state, new Date(now.getTime() - SIGN_IN_ATTEMPT_MS));
    if (!attempt) {
      throw new SignInRefused('This sign-in was used already or is older than 10 minutes: start it again');
    }
    const identity = await this.issuer.finish(callbackUrl, attempt);
    const user = await this.signedIn(identity, now);
    if (attempt.cli) {
      // the command line's sign-in: no session; a one-time code for its loopback, redeemed with its verifier
      const { secret: code, hash } = newSessionSecret();
      await this.people.saveCliCode(hash, user.id, attempt.cli.challenge, now);
      this.logger.log(`${user.name} signed in for the command line`);
      return { redirectTo: `http://127.0.0.1:${attempt.cli.port}/callback?code=${encodeURIComponent(code)}` };
    }
    const { secret, hash } = newSessionSecret();
    await this.people.createSession({
      id: randomUUID(),
      secretHash: hash,
      userId: user.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.lifetimes.maxMs),
      idToken: identity.idToken,
    });
    this.logger.log(`${user.name} signed in`);
    return { secret, maxAgeSeconds: Math.floor(this.lifetimes.maxMs / 1000) };
  }

  /**
   * The person the issuer vouched for (every check of their ID token passed), made or brought up
   * to date with their claims and groups; SignInRefused once an admin removed them.
   */
  async signedIn(identity: IssuedIdentity, now: Date): Promise<User> {
    const claims = claimsOfPerson(identity.claims, this.config.oidc!.groupsClaim);
    const user = await this.people.signedIn(identity.issuer, identity.subject, claims, now);
    if (user.removedAt) {
      throw new SignInRefused(`An Orbit admin removed ${user.name} from Orbit: ask one to let you in again`);
    }
    return user;
  }

  /** The command line's code and verifier, taken once, for its personal token (see commandLineToken). */
  async redeemCliCode(code: unknown, verifier: unknown, name: unknown, team: unknown) {
    const now = this.clock.now();
    const taken =
      typeof code === 'string'
        ? await this.people.takeCliCode(hashSecret(code), new Date(now.getTime() - CLI_CODE_MS))
        : null;
    if (!taken || typeof verifier !== 'string' || pkceChallenge(verifier) !== taken.challenge) {
      throw new InvalidArgumentError(
        "This sign-in code is unknown, used already, expired, or not this command line's: sign in again",
        'code',
      );
    }
    const user = await this.people.findUser(taken.userId);
    if (!user || user.removedAt) throw new InvalidArgumentError('This person was removed from Orbit', 'code');
    return this.commandLineToken(user, name, team);
  }

  /** A personal token for the command line: for the person's only team (or `team`), with their role there, for CLI_TOKEN_DAYS. */
  async commandLineToken(user: User, name: unknown, team: unknown) {
    const now = this.clock.now();
    const caller = await this.principal({ ...user, userId: user.id }, 'bearer');
    const chosen = typeof team === 'string' ? team : (impliedTeam(caller) ?? undefined);
    const role = chosen === undefined ? null : roleInTeam(caller, chosen);
    return this.tokens.create(caller, {
      name,
      role: role ?? 'viewer',
      team: chosen,
      expiresAt: new Date(now.getTime() + CLI_TOKEN_DAYS * 86_400_000).toISOString(),
    });
  }

  /** The person a session cookie stands for, or null once it ended, expired or its user was removed. */
  async bySession(secret: string): Promise<Principal | null> {
    const session = await this.people.findSession(hashSecret(secret));
    const now = this.clock.now();
    if (!session || session.user.removedAt || !sessionLive(session, now, this.lifetimes)) return null;
    if (sessionNeedsTouch(session, now)) await this.people.touchSession(session.id, now);
    return this.principal({ ...session.user, userId: session.user.id }, 'session');
  }

  /** The person a trusted proxy named (not stored: the proxy vouches for them on every request). */
  byHeaders(user: string, groups: string[]): Promise<Principal> {
    const email = user.includes('@') ? user : null;
    return this.principal({ userId: null, name: user, email, username: user, groups }, 'header');
  }

  /** Ends the session; where the browser goes next to end it at the issuer too (null: nowhere). */
  async signOut(secret: string): Promise<string | null> {
    const session = await this.people.findSession(hashSecret(secret));
    if (!session) return null;
    await this.people.endSession(session.id, this.clock.now());
    if (!this.config.oidc) return null;
    try {
      return await this.issuer.endSessionUrl(session.idToken, `${this.config.publicUrl}/ui/`);
    } catch (error) {
      this.logger.warn(`Could not find the issuer's sign-out: ${(error as Error).message}`);
      return null;
    }
  }

  listUsers(): Promise<User[]> {
    return this.people.listUsers();
  }

  async removeUser(id: string): Promise<void> {
    if (!(await this.people.removeUser(id, this.clock.now()))) throw new NotFoundError(`User ${id} not found`);
  }

  private principal(person: PersonClaims & { userId: string | null }, via: Principal['via']): Promise<Principal> {
    return this.teams.personAsCaller(person, this.config.adminGroups, via);
  }
}
