/** The fields of a job as the API answers it: the contract the HTTP tests and the Swagger test share. */
export const JOB_FIELDS = [
  'id',
  'name',
  'command',
  'cronExpression',
  'timezone',
  'maxRetries',
  'timeoutSeconds',
  'enabled',
  'misfirePolicy',
  'concurrencyPolicy',
  'alerts',
  'nextRunAt',
  'lastExecution',
  'createdAt',
  'updatedAt',
  // chains
  'triggers',
  'parameters',
  'startsAt',
  'endsAt',
  'jitterSeconds',
].sort();

/** The fields of an event as GET /events answers it, in their order: shared by the events and Swagger tests. */
export const EVENT_FIELDS = [
  'seq',
  'type',
  'at',
  'jobId',
  'executionId',
  'from',
  'to',
  'attempt',
  'trigger',
  'exitCode',
  'errorMessage',
  'workerId',
  'retryQueued',
];
