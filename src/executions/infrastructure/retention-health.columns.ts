import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import type { RetentionHealth } from '../domain/retention-health.js';

/** The row of `retention_health` (its key, `one`, is always true): the health, and when it was last written. */
export interface RetentionHealthRow extends RetentionHealth {
  updatedAt: Date;
}

/** The columns of `retention_health`, one per field of its row. */
export const RETENTION_HEALTH_COLUMNS = new TableColumns<RetentionHealthRow>('retention_health', {
  failingSince: { type: 'timestamptz', changes: true },
  lastError: { type: 'text', changes: true },
  lastSuccessAt: { type: 'timestamptz', changes: true },
  overdueSince: { type: 'timestamptz', changes: true },
  updatedAt: { type: 'timestamptz', changes: true },
});
