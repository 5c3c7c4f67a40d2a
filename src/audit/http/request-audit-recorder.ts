import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../shared/http/access.decorators.js';
import type { AuditedAction } from '../../shared/application/audited-actions.js';
import { Clock } from '../../shared/domain/clock.js';
import { AuditRecorder } from '../../shared/http/audited.interceptor.js';
import { AuditLog } from '../application/audit-log.js';

/**
 * Fields of a target that no one changes by hand: what the change itself or time moves (a
 * version, an updated instant, the next fire time) is not what a reader of the trail looks for.
 */
const NOT_CHANGES = new Set(['id', 'createdAt', 'updatedAt', 'version', 'nextRunAt', 'lastExecution']);

type Fields = Record<string, unknown>;

/** The fields whose value differs between the target before and after the change, each with both values. */
export function changedFields(before: Fields, after: Fields): Record<string, { before: unknown; after: unknown }> {
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (NOT_CHANGES.has(field) || isDeepStrictEqual(before[field], after[field])) continue;
    changes[field] = { before: before[field] ?? null, after: after[field] ?? null };
  }
  return changes;
}

const nameOf = (target: unknown): string | undefined => {
  const name = (target as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
};

/**
 * Who (the token's name), what, on which id, when: the audit trail's entry for a request that
 * succeeded. Its details name the target (as it was called then: a deleted job keeps its name
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
    const name = nameOf(result) ?? nameOf(before);
    const after = result !== null && typeof result === 'object' ? (result as Fields) : null;
    const changes = before && after ? changedFields(before as Fields, after) : {};
    const targetId = typeof resultId === 'string' ? resultId : (request.params.id ?? null);
    await this.audit.record({
      id: randomUUID(),
      createdAt: this.clock.now(),
      actor: request.principal?.name ?? 'anonymous',
      action,
      targetId,
      details: {
        ...(request.params.id && request.params.id !== targetId ? { path: { id: request.params.id } } : {}),
        ...(name === undefined ? {} : { name }),
        ...(Object.keys(changes).length > 0 ? { changes } : {}),
      },
    });
  }
}
