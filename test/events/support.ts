import { allowedEdges, ExecutionStatus, isFinal, TRANSITIONS } from '../../src/executions/domain/execution-status.js';
import type { TestDatabase } from '../support/test-database.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are loosely typed JSON
export type Body = Record<string, any>;

/** Every legal history from creation to a final status, from the domain's TRANSITIONS. */
export function legalHistories(): ExecutionStatus[][] {
  const edges = allowedEdges();
  const extend = (path: ExecutionStatus[]): ExecutionStatus[][] => {
    const last = path[path.length - 1]!;
    if (isFinal(last)) return [path];
    return edges.filter(([from]) => from === last).flatMap(([, to]) => extend([...path, to]));
  };
  return extend([ExecutionStatus.QUEUED]);
}

/** The action that moves an execution from `from` to `to`. */
export function actionFor(from: ExecutionStatus, to: ExecutionStatus): keyof typeof TRANSITIONS {
  const entry = Object.entries(TRANSITIONS).find(([, t]) => t.to === to && t.from.includes(from));
  if (!entry) throw new Error(`no action moves ${from} to ${to}`);
  return entry[0] as keyof typeof TRANSITIONS;
}

/**
 * The events an execution (as GET /executions/:id answers it, in its final state) must have
 * left on the way through `history`, field by field.
 */
export function expectedEvents(execution: Body, history: ExecutionStatus[], retryQueued = false): Body[] {
  return history.map((to, i) => ({
    type: `execution.${to.toLowerCase()}`,
    at:
      to === ExecutionStatus.QUEUED
        ? execution.createdAt
        : to === ExecutionStatus.RUNNING
          ? execution.startedAt
          : execution.finishedAt,
    jobId: execution.jobId,
    executionId: execution.id,
    from: i === 0 ? null : history[i - 1],
    to,
    attempt: execution.attempt,
    trigger: execution.trigger,
    exitCode: isFinal(to) ? execution.exitCode : null,
    errorMessage: isFinal(to) ? execution.errorMessage : null,
    workerId: to === ExecutionStatus.QUEUED ? null : execution.workerId,
    retryQueued: to === ExecutionStatus.FAILED && retryQueued,
  }));
}

/** The events of one execution as stored, in order, shaped as the API answers them (without seq). */
export async function storedEvents(db: TestDatabase, executionId: string): Promise<Body[]> {
  const { rows } = await db.sql(
    `SELECT type, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, job_id AS "jobId",
            execution_id AS "executionId", from_status AS "from", to_status AS "to", attempt, trigger,
            exit_code AS "exitCode", error_message AS "errorMessage", worker_id AS "workerId",
            retry_queued AS "retryQueued"
       FROM events WHERE execution_id = $1 ORDER BY seq`,
    [executionId],
  );
  return rows as Body[];
}

/** What each status needs on the row (the executions_shape_check), for moving it by hand. */
export const SQL_SHAPES: Record<ExecutionStatus, string> = {
  QUEUED: `started_at = NULL, finished_at = NULL, exit_code = NULL, error_message = NULL, worker_id = NULL`,
  RUNNING: `started_at = now(), worker_id = 'by-hand'`,
  SUCCEEDED: `finished_at = now(), exit_code = 0`,
  FAILED: `finished_at = now(), exit_code = 1, error_message = 'by hand'`,
  CANCELLED: `finished_at = now()`,
};
