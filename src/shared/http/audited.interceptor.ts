import { CallHandler, ExecutionContext, Injectable, NestInterceptor, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { from, mergeMap, Observable } from 'rxjs';
import type { AuditedAction } from '../application/audited-actions.js';

/** Metadata keys of the action an audited handler records and of how its target is read (see Audited). */
export const AUDITED = 'orbit:audited';
export const AUDITED_STATE = 'orbit:audited-state';

/**
 * Reads an audited change's target (named by the route's `:id`) as the API shows it, before the
 * change: implemented by the module that owns the target, so that the trail can say what changed.
 */
export abstract class AuditedState {
  /** The target as its API shows it, or null when there is none. */
  abstract read(id: string): Promise<object | null>;
}

/**
 * Records an audited action once its request succeeded: implemented by the audit module, so
 * that the routes of any module, the audit module's own neighbours too, can be audited
 * without depending on it. `before` is the target before the change, when its route names an
 * AuditedState.
 */
export abstract class AuditRecorder {
  abstract record(
    action: AuditedAction,
    context: ExecutionContext,
    result: unknown,
    before: object | null,
  ): Promise<void>;
}

/** After an audited endpoint succeeded, hands it to the AuditRecorder; a refused request records nothing. */
@Injectable()
export class AuditedInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly recorder: AuditRecorder,
    private readonly modules: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const action = this.reflector.get<AuditedAction | undefined>(AUDITED, context.getHandler());
    if (!action) return next.handle();
    return from(this.before(context)).pipe(
      mergeMap((before) =>
        next
          .handle()
          .pipe(
            mergeMap((result: unknown) =>
              from(this.recorder.record(action, context, result, before).then(() => result)),
            ),
          ),
      ),
    );
  }

  /** The target before the change; none when it cannot be read (the handler answers that, 404 or 400). */
  private async before(context: ExecutionContext): Promise<object | null> {
    const state = this.reflector.get<Type<AuditedState> | undefined>(AUDITED_STATE, context.getHandler());
    const id = context.switchToHttp().getRequest<{ params?: Record<string, string> }>().params?.id;
    if (!state || !id) return null;
    return this.modules
      .get(state, { strict: false })
      .read(id)
      .catch(() => null);
  }
}
