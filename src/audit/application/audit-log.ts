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

/** The trail of changes made through the API. */
export abstract class AuditLog {
  abstract record(event: AuditEvent): Promise<void>;
  abstract list(page: PageRequest): Promise<Page<AuditEvent>>;
}
