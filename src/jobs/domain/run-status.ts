/**
 * The statuses of a run of a job, as the answers about a job name them (its last run, its
 * stats). The executions module owns the lifecycle; a test holds its statuses equal to these.
 */
export const RUN_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
