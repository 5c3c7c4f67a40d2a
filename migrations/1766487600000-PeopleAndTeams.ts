import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People who sign in (through an OIDC issuer), their sessions, the sign-ins under way, the teams
 * whose grants give people their roles, and personal tokens. Everything that exists belongs to
 * the team `default`, made here; the tokens that exist stay organisation-wide.
 */
export class PeopleAndTeams1766487600000 implements MigrationInterface {
  name = 'PeopleAndTeams1766487600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE teams (
        name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
        created_at timestamptz NOT NULL
      )`);
    await db.query(`INSERT INTO teams (name, created_at) VALUES ('default', now())`);
    await db.query(`
      CREATE TABLE team_grants (
        team text NOT NULL REFERENCES teams (name) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('group', 'user')),
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        PRIMARY KEY (team, kind, subject)
      )`);
    await db.query(`CREATE INDEX team_grants_subject_idx ON team_grants (kind, subject)`);
    await db.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        issuer text NOT NULL,
        subject text NOT NULL,
        name text NOT NULL,
        email text,
        username text,
        groups text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        last_sign_in_at timestamptz NOT NULL,
        removed_at timestamptz,
        UNIQUE (issuer, subject)
      )`);
    await db.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        secret_hash text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        ended_at timestamptz,
        id_token text
      )`);
    await db.query(`CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE ended_at IS NULL`);
    await db.query(`CREATE INDEX sessions_expires_idx ON sessions (expires_at)`);
    await db.query(`
      CREATE TABLE sign_in_attempts (
        state text PRIMARY KEY,
        nonce text NOT NULL,
        code_verifier text NOT NULL,
        created_at timestamptz NOT NULL,
        cli_port integer CHECK (cli_port BETWEEN 1 AND 65535),
        cli_challenge text CHECK ((cli_port IS NULL) = (cli_challenge IS NULL))
      )`);
    await db.query(`CREATE INDEX sign_in_attempts_created_idx ON sign_in_attempts (created_at)`);
    // a sign-in for the command line: a one-time code the CLI redeems, with its verifier, for a token
    await db.query(`
      CREATE TABLE cli_sign_ins (
        code_hash text PRIMARY KEY CHECK (code_hash ~ '^[0-9a-f]{64}$'),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        challenge text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    // a team token is bound to one team; a personal token also to its person, and always expires
    await db.query(`
      ALTER TABLE api_tokens
        ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE CASCADE,
        ADD COLUMN team text REFERENCES teams (name) ON DELETE CASCADE,
        ADD COLUMN expires_at timestamptz,
        ADD CONSTRAINT api_tokens_personal_check CHECK (user_id IS NULL OR (team IS NOT NULL AND expires_at IS NOT NULL))`);
    await db.query(`CREATE INDEX api_tokens_user_idx ON api_tokens (user_id) WHERE user_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM api_tokens WHERE user_id IS NOT NULL`);
    await db.query(`ALTER TABLE api_tokens DROP COLUMN user_id, DROP COLUMN team, DROP COLUMN expires_at`);
    await db.query(`DROP TABLE cli_sign_ins`);
    await db.query(`DROP TABLE sign_in_attempts`);
    await db.query(`DROP TABLE sessions`);
    await db.query(`DROP TABLE users`);
    await db.query(`DROP TABLE team_grants`);
    await db.query(`DROP TABLE teams`);
  }
}
