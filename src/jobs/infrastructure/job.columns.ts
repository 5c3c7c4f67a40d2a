import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { JobProps } from '../domain/job.js';

/**
 * The columns of `jobs` that hold a job's props, one per field (the compiler checks that none is
 * missing). Not listed: `deleted_at`, which only a removal writes; every
 * read of a job passes over removed ones.
 */
export const JOB_COLUMNS = new TableColumns<JobProps>('jobs', {
  id: { type: 'uuid' },
  team: { type: 'text' },
  name: { type: 'text' },
  description: { type: 'text' },
  command: { type: 'text' },
  cronExpression: { type: 'text' },
  timezone: { type: 'text' },
  maxRetries: { type: 'integer' },
  timeoutSeconds: { type: 'integer' },
  enabled: { type: 'boolean' },
  misfirePolicy: { type: 'text' },
  concurrencyPolicy: { type: 'text' },
  alerts: { type: 'jsonb' },
  lateAfterSeconds: { type: 'integer' },
  maxDurationSeconds: { type: 'integer' },
  nextRunAt: { type: 'timestamptz' },
  createdAt: { type: 'timestamptz' },
  updatedAt: { type: 'timestamptz' },
  version: { type: 'integer' },
  pausedNote: { type: 'text' },
  resumeAt: { type: 'timestamptz' },
  workerSelector: { type: 'jsonb' },
  runOn: { type: 'text' },
  maxConcurrent: { type: 'integer' },
  concurrencyGroup: { type: 'text' },
  priority: { type: 'smallint' },
  triggers: { type: 'jsonb' },
  parameters: { type: 'jsonb' },
  startsAt: { type: 'timestamptz' },
  endsAt: { type: 'timestamptz' },
  jitterSeconds: { type: 'integer' },
});
