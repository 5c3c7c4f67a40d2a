import type { PersonClaims } from '../domain/person.js';
import type { SignInAttempt } from './oidc-issuer.js';

/** A person who signed in through the issuer. */
export interface User extends PersonClaims {
  id: string;
  issuer: string;
  subject: string;
  createdAt: Date;
  lastSignInAt: Date;
  removedAt: Date | null;
}

/** A session and the person it belongs to. */
export interface StoredSession {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  idToken: string | null;
  user: User;
}

export abstract class PeopleRepository {
  abstract saveAttempt(attempt: SignInAttempt): Promise<void>;
  /** The attempt of this state, taken once (a second callback finds nothing); older ones are dropped. */
  abstract takeAttempt(state: string, notBefore: Date): Promise<SignInAttempt | null>;

  /** Records a sign-in: the user made or brought up to date by (issuer, subject). */
  abstract signedIn(issuer: string, subject: string, claims: PersonClaims, now: Date): Promise<User>;
  abstract createSession(
    session: Omit<StoredSession, 'user' | 'endedAt'> & { userId: string; secretHash: string },
  ): Promise<void>;
  /** The session stored under this hash, ended or not, with its user. */
  abstract findSession(secretHash: string): Promise<StoredSession | null>;
  abstract touchSession(id: string, now: Date): Promise<void>;
  /** Ends it; true when it was live. */
  abstract endSession(id: string, now: Date): Promise<boolean>;

  /** Keeps a command line's one-time code (its hash), for its user and its PKCE challenge. */
  abstract saveCliCode(codeHash: string, userId: string, challenge: string, now: Date): Promise<void>;
  /** The code's user and challenge, taken once; older ones are dropped. */
  abstract takeCliCode(codeHash: string, notBefore: Date): Promise<{ userId: string; challenge: string } | null>;
  abstract findUser(id: string): Promise<User | null>;
  abstract listUsers(): Promise<User[]>;
  /** Marks the user removed and ends their sessions; false when there is no such user. */
  abstract removeUser(id: string, now: Date): Promise<boolean>;
}
