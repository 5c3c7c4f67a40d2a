import { MigrationInterface, QueryRunner } from 'typeorm';

/** API tokens (only their hashes) and the audit trail of changes made through the API. */
export class TokensAndAudit1764633600000 implements MigrationInterface {
  name = 'TokensAndAudit1764633600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX api_tokens_newest_idx ON api_tokens (created_at DESC, id DESC)`);
    await db.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY,
        created_at timestamptz NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        target_id uuid,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await db.query(`CREATE INDEX audit_events_newest_idx ON audit_events (created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE audit_events`);
    await db.query(`DROP TABLE api_tokens`);
  }
}
