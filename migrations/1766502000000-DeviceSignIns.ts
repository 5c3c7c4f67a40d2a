import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-ins of the command line through the issuer's device authorization grant, which Orbit runs
 * on the command line's behalf (the client secret stays on the server). The command line holds
 * a random handle; only its hash is kept, beside the issuer's device code, which never leaves
 * Orbit. A row lives until it is redeemed, refused, or expires.
 */
export class DeviceSignIns1766502000000 implements MigrationInterface {
  name = 'DeviceSignIns1766502000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE device_sign_ins (
        handle_hash text PRIMARY KEY CHECK (handle_hash ~ '^[0-9a-f]{64}$'),
        device_code text NOT NULL,
        nonce text NOT NULL,
        interval_seconds integer NOT NULL CHECK (interval_seconds BETWEEN 1 AND 3600),
        next_poll_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX device_sign_ins_expires_idx ON device_sign_ins (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE device_sign_ins`);
  }
}
