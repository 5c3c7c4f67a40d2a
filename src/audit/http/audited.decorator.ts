import { SetMetadata } from '@nestjs/common';
import type { AuditedAction } from '../application/audit-log.js';

export const AUDITED = 'orbit:audited';

/** Records the action in the audit trail once the request succeeded. */
export const Audited = (action: AuditedAction) => SetMetadata(AUDITED, action);
