import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import type { TestDatabase } from '../support/test-database.js';

const MIGRATION = 'DeviceSignIns1766502000000';

const tableExists = async (db: TestDatabase) =>
  (await db.sql(`SELECT to_regclass('device_sign_ins') IS NOT NULL AS present`)).rows[0].present as boolean;

const insert = (db: TestDatabase, handleHash: string, intervalSeconds = 5) =>
  db.sql(
    `INSERT INTO device_sign_ins (handle_hash, device_code, nonce, interval_seconds, next_poll_at, expires_at, created_at)
     VALUES ($1, 'device-code', 'nonce', $2, now(), now() + interval '10 minutes', now())`,
    [handleHash, intervalSeconds],
  );

describe('the DeviceSignIns migration', () => {
  let db: TestDatabase;
  let source: DataSource;

  beforeAll(async () => {
    ({ db, source } = await migratableDatabase());
  });
  afterAll(() => closeMigratable(db, source));

  it('goes back and forth: the table is dropped, then made again', async () => {
    expect(await tableExists(db)).toBe(true);
    await undoFrom(source, MIGRATION);
    expect(await tableExists(db)).toBe(false);
    await source.runMigrations({ transaction: 'all' });
    expect(await tableExists(db)).toBe(true);
  });

  it('keeps a hash of the handle, never the handle, and an interval of 1 to 3600 seconds', async () => {
    const hash = createHash('sha256').update('handle').digest('hex');
    await insert(db, hash);
    await expect(insert(db, 'the-handle-itself')).rejects.toThrow(/device_sign_ins_handle_hash_check/);
    const other = createHash('sha256').update('other handle').digest('hex');
    await expect(insert(db, other, 0)).rejects.toThrow(/device_sign_ins_interval_seconds_check/);
  });
});
