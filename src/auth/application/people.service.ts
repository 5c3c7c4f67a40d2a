import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import type { Principal } from '../../shared/domain/principal.js';
import { hashSecret } from '../domain/api-token.js';
import { claimsOfPerson, PersonClaims, personKeys, personPrincipal } from '../domain/person.js';
import { newSessionSecret, SessionLifetimes, sessionLive, sessionNeedsTouch } from '../domain/session.js';
import { OidcIssuer, SignInRefused } from './oidc-issuer.js';
import { PeopleRepository, User } from './people.repository.js';
import { TeamRepository } from './team.repository.js';

/** How long a started sign-in may take at the issuer. */
export const SIGN_IN_ATTEMPT_MS = 10 * 60_000;

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
  ) {
    this.lifetimes = { idleMs: config.sessionIdleMinutes * 60_000, maxMs: config.sessionMaxHours * 3_600_000 };
  }

  /** Where the issuer sends the browser back to. */
  get redirectUri(): string {
    return `${this.config.publicUrl}/auth/callback`;
  }

  /** A new sign-in: the issuer's URL to send the browser to, and the state the browser keeps meanwhile. */
  async begin(): Promise<{ url: string; state: string }> {
    if (!this.config.oidc) {
      throw new NotFoundError(
        'Sign-in through an issuer is not set up here: set ORBIT_OIDC_ISSUER and ORBIT_OIDC_CLIENT_ID',
      );
    }
    const started = await this.issuer.begin(this.redirectUri);
    await this.people.saveAttempt({
      state: started.state,
      nonce: started.nonce,
      codeVerifier: started.codeVerifier,
      createdAt: this.clock.now(),
    });
    return { url: started.url, state: started.state };
  }

  /**
   * The issuer's answer: a session for the person, or SignInRefused. `browserState` is the state
   * this browser was given at the start (its cookie): an answer meant for another browser, or a
   * replayed one, finds no attempt.
   */
  async complete(callbackUrl: URL, browserState: string | undefined): Promise<NewSession> {
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
    const claims = claimsOfPerson(identity.claims, this.config.oidc!.groupsClaim);
    const user = await this.people.signedIn(identity.issuer, identity.subject, claims, now);
    if (user.removedAt) {
      throw new SignInRefused(`An Orbit admin removed ${user.name} from Orbit: ask one to let you in again`);
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

  private async principal(person: PersonClaims & { userId: string | null }, via: Principal['via']): Promise<Principal> {
    const grants = await this.teams.grantsFor(person.groups, personKeys(person));
    return personPrincipal(person, grants, this.config.adminGroups, via);
  }
}
