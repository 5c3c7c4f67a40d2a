import { randomUUID } from 'node:crypto';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, mergeMap, Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../../auth/http/auth.decorators.js';
import { Clock } from '../../shared/domain/clock.js';
import { AuditedAction, AuditLog } from '../application/audit-log.js';

/** Metadata key of the action an audited handler records (see Audited). */
export const AUDITED = 'orbit:audited';

/**
 * After an audited endpoint succeeded: who (the token's name), what, on which id, when.
 * A refused request records nothing. Bound by @Audited to the handlers it audits.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<AuditedAction | undefined>(AUDITED, context.getHandler());
    if (!action) return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    return next.handle().pipe(
      mergeMap((result: unknown) =>
        from(
          (async () => {
            const resultId = (result as { id?: unknown } | undefined)?.id;
            await this.audit.record({
              id: randomUUID(),
              createdAt: this.clock.now(),
              actor: request.principal?.name ?? 'anonymous',
              action,
              targetId: typeof resultId === 'string' ? resultId : (request.params.id ?? null),
              details: request.params.id && request.params.id !== resultId ? { path: { id: request.params.id } } : {},
            });
            return result;
          })(),
        ),
      ),
    );
  }
}
