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
  /** The team it happened in (a job's, a channel's…; the one it left, for a move); null: across the organisation. */
  team: string | null;
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
  /** Only what happened in these teams (the organisation's own events left out); undefined: everything. */
  teams?: readonly string[];
}

/** The trail of changes made through the API. */
export abstract class AuditLog {
  abstract record(event: AuditEvent): Promise<void>;
  abstract list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEvent>>;
}
