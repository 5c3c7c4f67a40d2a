import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import type { DeviceSignIn } from '../application/device-sign-in.repository.js';

/** The columns of `device_sign_ins`, one per field of a DeviceSignIn (the compiler checks that none is missing). */
export const DEVICE_SIGN_IN_COLUMNS = new TableColumns<DeviceSignIn>('device_sign_ins', {
  handleHash: { type: 'text' },
  deviceCode: { type: 'text' },
  nonce: { type: 'text' },
  intervalSeconds: { type: 'integer', changes: true },
  nextPollAt: { type: 'timestamptz', changes: true },
  expiresAt: { type: 'timestamptz' },
  createdAt: { type: 'timestamptz' },
});
