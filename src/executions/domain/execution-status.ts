export enum ExecutionStatus {
  QUEUED = 'QUEUED',
  RUNNING = 'RUNNING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}

export const EXECUTION_STATUSES = Object.values(ExecutionStatus);

export type ExecutionAction = 'start' | 'succeed' | 'fail' | 'cancel';

export interface Transition {
  from: readonly ExecutionStatus[];
  to: ExecutionStatus;
  /** The exact message an action gets when the current state does not allow it. */
  refusal: string;
}

/**
 * The single source of truth of the lifecycle. The entity's action methods, the conditional
 * updates in SQL and the database's transition trigger are all derived from this table.
 */
export const TRANSITIONS: Readonly<Record<ExecutionAction, Transition>> = {
  start: {
    from: [ExecutionStatus.QUEUED],
    to: ExecutionStatus.RUNNING,
    refusal: 'Only queued executions can be started',
  },
  succeed: {
    from: [ExecutionStatus.RUNNING],
    to: ExecutionStatus.SUCCEEDED,
    refusal: 'Only running executions can succeed',
  },
  fail: {
    from: [ExecutionStatus.RUNNING],
    to: ExecutionStatus.FAILED,
    refusal: 'Only running executions can fail',
  },
  cancel: {
    from: [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING],
    to: ExecutionStatus.CANCELLED,
    refusal: 'Only queued or running executions can be cancelled',
  },
};

/** Every (from, to) pair the lifecycle allows. */
export function allowedEdges(): Array<[ExecutionStatus, ExecutionStatus]> {
  return Object.values(TRANSITIONS).flatMap((t) =>
    t.from.map((from): [ExecutionStatus, ExecutionStatus] => [from, t.to]),
  );
}

export function isFinal(status: ExecutionStatus): boolean {
  return !Object.values(TRANSITIONS).some((t) => t.from.includes(status));
}
