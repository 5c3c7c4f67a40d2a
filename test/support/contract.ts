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
].sort();
