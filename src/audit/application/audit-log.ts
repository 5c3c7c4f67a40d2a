import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { Page, PageRequest } from '../../shared/application/page.js';

export interface AuditEvent {
  id: string;
  createdAt: Date;
  /** The name of the token that made the change. */
  actor: string;
  action: AuditedAction;
  targetId: string | null;
  details: Record<string, unknown>;
}

/** Which events a list holds: each field left out lets every event through. */
export interface AuditFilter {
  /** Any of these actions. */
  actions?: AuditedAction[];
  actor?: string;
  targetId?: string;
  /** Made at this instant or later. */
  from?: Date;
  /** Made before this instant. */
  to?: Date;
}

/** The trail of changes made through the API. */
export abstract class AuditLog {
  abstract record(event: AuditEvent): Promise<void>;
  abstract list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>>;
}
