import { randomUUID } from 'node:crypto';
import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../shared/http/access.decorators.js';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { changedFields } from '../../shared/application/field-changes.js';
import { Clock } from '../../shared/domain/clock.js';
import { actorName } from '../../shared/domain/principal.js';
import { AuditRecorder } from '../../shared/http/audited.interceptor.js';
import { AuditLog } from '../application/audit-log.js';

/**
 * Fields of a target that no one changes by hand: what the change itself or time moves (a
 * version, an updated instant, the next fire time) is not what a reader of the trail looks for.
 */
const NOT_CHANGES = new Set(['id', 'createdAt', 'updatedAt', 'version', 'nextRunAt', 'lastExecution']);

/** What a change changed, field by field, before and after (the trail's `details.changes`). */
function changesBetween(before: object, after: object): Record<string, { before: unknown; after: unknown }> {
  return Object.fromEntries(
    changedFields(before, after)
      .filter(({ field }) => !NOT_CHANGES.has(field))
      .map(({ field, from, to }) => [field, { before: from, after: to ?? null }]),
  );
}

const nameOf = (target: unknown): string | undefined => {
  const name = (target as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
};

/**
 * Who (the token's name), what, on which id, when, in which team: the audit trail's entry for a
 * request that succeeded. Its details name the target (as it was called then: a deleted job keeps its name
 * here) and, when the route read the target before (see Audited), what changed, before → after.
 */
@Injectable()
export class RequestAuditRecorder extends AuditRecorder {
  constructor(
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {
    super();
  }

  async record(
    action: AuditedAction,
    context: ExecutionContext,
    result: unknown,
    before: object | null,
  ): Promise<void> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const resultId = (result as { id?: unknown } | undefined)?.id;
    const name = nameOf(result) ?? nameOf(before) ?? request.params.name;
    const changes = before && result !== null && typeof result === 'object' ? changesBetween(before, result) : {};
    const targetId = typeof resultId === 'string' ? resultId : (request.params.id ?? null);
    await this.audit.record({
      id: randomUUID(),
      createdAt: this.clock.now(),
      actor: request.principal ? actorName(request.principal) : 'anonymous',
      action,
      targetId,
      details: {
        ...(request.params.id && request.params.id !== targetId ? { path: { id: request.params.id } } : {}),
        ...(name === undefined ? {} : { name }),
        ...(Object.keys(changes).length > 0 ? { changes } : {}),
      },
      // the team the guard found for the route: the new thing's, or the owned thing's (before a move)
      team: request.team ?? null,
    });
  }
}
