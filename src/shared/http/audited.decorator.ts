import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import type { AuditedAction } from '../application/audited-actions.js';
import { AUDITED, AuditedInterceptor } from './audited.interceptor.js';

/**
 * Records the action in the audit trail once the request succeeded. The interceptor is bound
 * to the audited handlers only: every other request (all reads) skips Nest's interceptor
 * pipeline, an rxjs chain built per request.
 */
export const Audited = (action: AuditedAction) =>
  applyDecorators(SetMetadata(AUDITED, action), UseInterceptors(AuditedInterceptor));
