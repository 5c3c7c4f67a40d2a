import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { DevicePollClaim, DeviceSignIn, DeviceSignInRepository } from '../application/device-sign-in.repository.js';
import { DEVICE_SIGN_IN_COLUMNS as COLUMNS } from './device-sign-in.columns.js';

const SELECTED = COLUMNS.select();
const INSERT = COLUMNS.insert();

@Injectable()
export class SqlDeviceSignInRepository extends DeviceSignInRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async save(signIn: DeviceSignIn): Promise<void> {
    await this.db.rows(`DELETE FROM device_sign_ins WHERE expires_at < $1`, [signIn.createdAt]);
    await this.db.rows(INSERT, COLUMNS.params(signIn));
  }

  async claimPoll(handleHash: string, now: Date): Promise<DevicePollClaim> {
    const claimed = await this.db.rows<DeviceSignIn>(
      `UPDATE device_sign_ins SET next_poll_at = $2::timestamptz + make_interval(secs => interval_seconds)
        WHERE handle_hash = $1 AND next_poll_at <= $2 AND expires_at > $2
        RETURNING ${SELECTED}`,
      [handleHash, now],
    );
    if (claimed[0]) return { kind: 'claimed', signIn: claimed[0] };
    const expired = await this.db.rows(
      `DELETE FROM device_sign_ins WHERE handle_hash = $1 AND expires_at <= $2 RETURNING handle_hash`,
      [handleHash, now],
    );
    if (expired.length > 0) return { kind: 'expired' };
    const found = await this.db.rows<DeviceSignIn>(`SELECT ${SELECTED} FROM device_sign_ins WHERE handle_hash = $1`, [
      handleHash,
    ]);
    return found[0] ? { kind: 'early', signIn: found[0] } : { kind: 'unknown' };
  }

  async slowDown(handleHash: string, intervalSeconds: number, now: Date): Promise<void> {
    await this.db.rows(
      `UPDATE device_sign_ins
          SET ${COLUMNS.assignments(['intervalSeconds'], 2)},
              next_poll_at = $3::timestamptz + make_interval(secs => $2::integer)
        WHERE handle_hash = $1`,
      [handleHash, intervalSeconds, now],
    );
  }

  async take(handleHash: string): Promise<boolean> {
    const rows = await this.db.rows(`DELETE FROM device_sign_ins WHERE handle_hash = $1 RETURNING handle_hash`, [
      handleHash,
    ]);
    return rows.length === 1;
  }
}
