import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, mergeMap, Observable } from 'rxjs';
import type { AuditedAction } from '../application/audited-actions.js';

/** Metadata key of the action an audited handler records (see Audited). */
export const AUDITED = 'orbit:audited';

/**
 * Records an audited action once its request succeeded: implemented by the audit module, so
 * that the routes of any module, the audit module's own neighbours too, can be audited
 * without depending on it.
 */
export abstract class AuditRecorder {
  abstract record(action: AuditedAction, context: ExecutionContext, result: unknown): Promise<void>;
}

/** After an audited endpoint succeeded, hands it to the AuditRecorder; a refused request records nothing. */
@Injectable()
export class AuditedInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly recorder: AuditRecorder,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<AuditedAction | undefined>(AUDITED, context.getHandler());
    if (!action) return next.handle();
    return next
      .handle()
      .pipe(mergeMap((result: unknown) => from(this.recorder.record(action, context, result).then(() => result))));
  }
}
