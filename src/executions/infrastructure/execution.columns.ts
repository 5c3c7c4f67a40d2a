import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { ExecutionProps } from '../domain/execution.js';

/**
 * The columns of `executions` that hold an execution's props, one per field (the compiler
 * checks that none is missing), in the table's order. Not listed: `lease_expires_at`, the
 * runtime's own (set by a claim, renewed by heartbeats, cleared by any other change).
 * The `changes` columns are the arguments of orbit_save_executions: a new one is also a migration
 * that replaces that function (see the SaveByFunction migration). `cancelledBy` is not one: only a
 * cancel writes it, by a statement of its own (see SqlExecutionRepository), so the saves of every
 * other change, a run's finish first, send and write no more than before.
 */
export const EXECUTION_COLUMNS = new TableColumns<ExecutionProps>('executions', {
  id: { type: 'uuid' },
  jobId: { type: 'uuid' },
  command: { type: 'text' },
  maxRetries: { type: 'integer' },
  timeoutSeconds: { type: 'integer' },
  status: { type: 'text', changes: true },
  attempt: { type: 'integer' },
  trigger: { type: 'text' },
  scheduledFor: { type: 'timestamptz' },
  retryOf: { type: 'uuid' },
  dueAt: { type: 'timestamptz' },
  createdAt: { type: 'timestamptz' },
  startedAt: { type: 'timestamptz', changes: true },
  finishedAt: { type: 'timestamptz', changes: true },
  exitCode: { type: 'integer', changes: true },
  errorMessage: { type: 'text', changes: true },
  workerId: { type: 'text', changes: true },
  version: { type: 'integer' },
  failureCause: { type: 'text', changes: true },
  workerSelector: { type: 'jsonb' },
  maxConcurrent: { type: 'integer' },
  concurrencyGroup: { type: 'text' },
  priority: { type: 'smallint' },
  pinnedWorker: { type: 'text' },
  waitingFor: { type: 'text', changes: true },
  parameters: { type: 'jsonb' },
  triggeredBy: { type: 'uuid' },
  upstreamStatus: { type: 'text' },
  maxDurationSeconds: { type: 'integer' },
  cancelledBy: { type: 'jsonb' },
});
