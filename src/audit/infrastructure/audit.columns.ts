import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { AuditEvent } from '../application/audit-log.js';

/** The columns of `audit_events`, one per field of an event (the compiler checks that none is missing). */
export const AUDIT_COLUMNS = new TableColumns<AuditEvent>('audit_events', {
  id: { type: 'uuid' },
  createdAt: { type: 'timestamptz' },
  actor: { type: 'text' },
  action: { type: 'text' },
  targetId: { type: 'uuid' },
  details: { type: 'jsonb' },
  team: { type: 'text' },
});
