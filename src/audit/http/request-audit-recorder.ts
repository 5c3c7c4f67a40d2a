import { randomUUID } from 'node:crypto';
import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../shared/http/access.decorators.js';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { Clock } from '../../shared/domain/clock.js';
import { AuditRecorder } from '../../shared/http/audited.interceptor.js';
import { AuditLog } from '../application/audit-log.js';

/** Who (the token's name), what, on which id, when: the audit trail's entry for a request that succeeded. */
@Injectable()
export class RequestAuditRecorder extends AuditRecorder {
  constructor(
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {
    super();
  }

  async record(action: AuditedAction, context: ExecutionContext, result: unknown): Promise<void> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const resultId = (result as { id?: unknown } | undefined)?.id;
    await this.audit.record({
      id: randomUUID(),
      createdAt: this.clock.now(),
      actor: request.principal?.name ?? 'anonymous',
      action,
      targetId: typeof resultId === 'string' ? resultId : (request.params.id ?? null),
      details: request.params.id && request.params.id !== resultId ? { path: { id: request.params.id } } : {},
    });
  }
}
