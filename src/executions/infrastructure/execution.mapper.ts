import { Execution, ExecutionTrigger } from '../domain/execution.js';
import { ExecutionStatus } from '../domain/execution-status.js';
import { ExecutionOrmEntity } from './execution.orm-entity.js';

export const ExecutionMapper = {
  toDomain: (row: ExecutionOrmEntity): Execution => {
    return Execution.restore({
      id: row.id,
      jobId: row.jobId,
      command: row.command,
      maxRetries: row.maxRetries,
      timeoutSeconds: row.timeoutSeconds,
      status: row.status as ExecutionStatus,
      attempt: row.attempt,
      trigger: row.trigger as ExecutionTrigger,
      scheduledFor: row.scheduledFor,
      retryOf: row.retryOf,
      dueAt: row.dueAt,
      createdAt: row.createdAt,
      startedAt: row.startedAt,
      finishedAt: row.finishedAt,
      exitCode: row.exitCode,
      errorMessage: row.errorMessage,
      workerId: row.workerId,
      version: row.version,
    });
  },

  /** The row of an execution; the lease is runtime state that the domain does not carry. */
  toRow: (execution: Execution, leaseExpiresAt: Date | null = null): ExecutionOrmEntity => {
    return Object.assign(new ExecutionOrmEntity(), { ...execution.toProps(), leaseExpiresAt });
  },
};
