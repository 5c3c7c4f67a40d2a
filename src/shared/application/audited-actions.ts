/** The changes the audit trail records, each named by the route that makes it (see Audited). */
export const AUDITED_ACTIONS = [
  'job.created',
  'job.updated',
  'job.deleted',
  'execution.triggered',
  'execution.cancelled',
  'token.created',
  'token.revoked',
  'channel.created',
  'channel.updated',
  'channel.deleted',
  'channel.tested',
  'file.applied',
  'job.paused',
  'job.resumed',
  'concurrency-group.created',
  'concurrency-group.updated',
  'concurrency-group.deleted',
  'worker.drained',
  'worker.resumed',
  'execution.backfilled',
] as const;
export type AuditedAction = (typeof AUDITED_ACTIONS)[number];
