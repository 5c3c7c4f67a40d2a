import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import type { SignInAttempt } from '../application/oidc-issuer.js';
import { PeopleRepository, StoredSession, User } from '../application/people.repository.js';
import type { PersonClaims } from '../domain/person.js';

const USER = `u.id, u.issuer, u.subject, u.name, u.email, u.username, u.groups,
  u.created_at AS "createdAt", u.last_sign_in_at AS "lastSignInAt", u.removed_at AS "removedAt"`;

type SessionRow = Omit<StoredSession, 'user'> & { user: User };

@Injectable()
export class SqlPeopleRepository extends PeopleRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async saveAttempt(attempt: SignInAttempt): Promise<void> {
    await this.db.rows(
      `INSERT INTO sign_in_attempts (state, nonce, code_verifier, created_at, cli_port, cli_challenge)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        attempt.state,
        attempt.nonce,
        attempt.codeVerifier,
        attempt.createdAt,
        attempt.cli?.port ?? null,
        attempt.cli?.challenge ?? null,
      ],
    );
  }

  async takeAttempt(state: string, notBefore: Date): Promise<SignInAttempt | null> {
    await this.db.rows(`DELETE FROM sign_in_attempts WHERE created_at < $1`, [notBefore]);
    const rows = await this.db.rows<Omit<SignInAttempt, 'cli'> & { cliPort: number | null; cliChallenge: string }>(
      `DELETE FROM sign_in_attempts WHERE state = $1
       RETURNING state, nonce, code_verifier AS "codeVerifier", created_at AS "createdAt",
                 cli_port AS "cliPort", cli_challenge AS "cliChallenge"`,
      [state],
    );
    const row = rows[0];
    if (!row) return null;
    const { cliPort, cliChallenge, ...attempt } = row;
    return { ...attempt, cli: cliPort === null ? null : { port: cliPort, challenge: cliChallenge } };
  }

  async saveCliCode(codeHash: string, userId: string, challenge: string, now: Date): Promise<void> {
    await this.db.rows(`INSERT INTO cli_sign_ins (code_hash, user_id, challenge, created_at) VALUES ($1, $2, $3, $4)`, [
      codeHash,
      userId,
      challenge,
      now,
    ]);
  }

  async takeCliCode(codeHash: string, notBefore: Date): Promise<{ userId: string; challenge: string } | null> {
    await this.db.rows(`DELETE FROM cli_sign_ins WHERE created_at < $1`, [notBefore]);
    const rows = await this.db.rows<{ userId: string; challenge: string }>(
      `DELETE FROM cli_sign_ins WHERE code_hash = $1 RETURNING user_id AS "userId", challenge`,
      [codeHash],
    );
    return rows[0] ?? null;
  }

  async signedIn(issuer: string, subject: string, claims: PersonClaims, now: Date): Promise<User> {
    const rows = await this.db.rows<User>(
      `INSERT INTO users AS u (id, issuer, subject, name, email, username, groups, created_at, last_sign_in_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (issuer, subject) DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email,
         username = EXCLUDED.username, groups = EXCLUDED.groups, last_sign_in_at = EXCLUDED.last_sign_in_at
       RETURNING ${USER}`,
      [randomUUID(), issuer, subject, claims.name, claims.email, claims.username, claims.groups, now],
    );
    return rows[0]!;
  }

  async createSession(session: Omit<StoredSession, 'user' | 'endedAt'> & { userId: string; secretHash: string }) {
    // sessions past their absolute end by a day go as new ones come: none of them signs anyone in
    await this.db.rows(`DELETE FROM sessions WHERE expires_at < $1::timestamptz - interval '1 day'`, [
      session.createdAt,
    ]);
    await this.db.rows(
      `INSERT INTO sessions (id, secret_hash, user_id, created_at, last_seen_at, expires_at, id_token)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        session.id,
        session.secretHash,
        session.userId,
        session.createdAt,
        session.lastSeenAt,
        session.expiresAt,
        session.idToken,
      ],
    );
  }

  async findSession(secretHash: string): Promise<StoredSession | null> {
    const rows = await this.db.rows<SessionRow>(
      `SELECT s.id, s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt",
              s.ended_at AS "endedAt", s.id_token AS "idToken",
              json_build_object('id', u.id, 'issuer', u.issuer, 'subject', u.subject, 'name', u.name,
                'email', u.email, 'username', u.username, 'groups', u.groups, 'createdAt', u.created_at,
                'lastSignInAt', u.last_sign_in_at, 'removedAt', u.removed_at) AS user
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.secret_hash = $1`,
      [secretHash],
    );
    const row = rows[0];
    if (!row) return null;
    const user = row.user as unknown as Record<string, unknown>;
    return {
      ...row,
      user: {
        ...(user as unknown as User),
        createdAt: new Date(user.createdAt as string),
        lastSignInAt: new Date(user.lastSignInAt as string),
        removedAt: user.removedAt ? new Date(user.removedAt as string) : null,
      },
    };
  }

  async touchSession(id: string, now: Date): Promise<void> {
    await this.db.rows(`UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2`, [id, now]);
  }

  async endSession(id: string, now: Date): Promise<boolean> {
    const rows = await this.db.rows(
      `UPDATE sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL RETURNING id`,
      [id, now],
    );
    return rows.length === 1;
  }

  async findUser(id: string): Promise<User | null> {
    return (await this.db.rows<User>(`SELECT ${USER} FROM users u WHERE u.id = $1`, [id]))[0] ?? null;
  }

  listUsers(): Promise<User[]> {
    return this.db.rows<User>(`SELECT ${USER} FROM users u ORDER BY u.name, u.id`);
  }

  removeUser(id: string, now: Date): Promise<boolean> {
    return this.db.run(async () => {
      const rows = await this.db.rows(
        `UPDATE users SET removed_at = coalesce(removed_at, $2) WHERE id = $1 RETURNING id`,
        [id, now],
      );
      if (rows.length === 0) return false;
      await this.db.rows(`UPDATE sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL`, [id, now]);
      return true;
    });
  }
}
