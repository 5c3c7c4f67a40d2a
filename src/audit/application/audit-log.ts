import { Page, PageRequest } from '../../shared/application/page.js';

export const AUDITED_ACTIONS = [
  'job.created',
  'job.updated',
  'job.deleted',
  'execution.triggered',
  'execution.cancelled',
  'token.created',
  'token.revoked',
] as const;
export type AuditedAction = (typeof AUDITED_ACTIONS)[number];

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
