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
  'execution.backfilled',
] as const;
export type AuditedAction = (typeof AUDITED_ACTIONS)[number];
