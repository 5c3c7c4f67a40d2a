import { applyDecorators, SetMetadata, Type, UseInterceptors } from '@nestjs/common';
import type { AuditedAction } from '../application/audited-actions.js';
import { AUDITED, AUDITED_STATE, AuditedInterceptor, AuditedState } from './audited.interceptor.js';

/**
 * Records the action in the audit trail once the request succeeded; with `state`, the target as
 * it was before (read by that provider from the route's `:id`), so that the trail says what
 * changed. The interceptor is bound to the audited handlers only: every other request (all
 * reads) skips Nest's interceptor pipeline, an rxjs chain built per request.
 */
export const Audited = (action: AuditedAction, state?: Type<AuditedState>) =>
  applyDecorators(SetMetadata(AUDITED, action), SetMetadata(AUDITED_STATE, state), UseInterceptors(AuditedInterceptor));
