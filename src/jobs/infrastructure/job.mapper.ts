import { Job } from '../domain/job.js';
import { ConcurrencyPolicy, MisfirePolicy } from '../domain/job-policies.js';
import { RunOn } from '../domain/job-placement.js';
import { JobOrmEntity } from './job.orm-entity.js';

export const JobMapper = {
  toDomain: (row: JobOrmEntity): Job => {
    return Job.restore({
      id: row.id,
      name: row.name,
      command: row.command,
      cronExpression: row.cronExpression,
      timezone: row.timezone,
      maxRetries: row.maxRetries,
      timeoutSeconds: row.timeoutSeconds,
      enabled: row.enabled,
      misfirePolicy: row.misfirePolicy as MisfirePolicy,
      concurrencyPolicy: row.concurrencyPolicy as ConcurrencyPolicy,
      alerts: row.alerts,
      workerSelector: row.workerSelector,
      runOn: row.runOn as RunOn,
      maxConcurrent: row.maxConcurrent,
      concurrencyGroup: row.concurrencyGroup,
      priority: row.priority,
      lateAfterSeconds: row.lateAfterSeconds,
      maxDurationSeconds: row.maxDurationSeconds,
      nextRunAt: row.nextRunAt,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      version: row.version,
      pausedNote: row.pausedNote,
      resumeAt: row.resumeAt,
      triggers: row.triggers,
      parameters: row.parameters,
      startsAt: row.startsAt,
      endsAt: row.endsAt,
      jitterSeconds: row.jitterSeconds,
    });
  },

  toRow: (job: Job): JobOrmEntity => {
    return Object.assign(new JobOrmEntity(), { ...job.toProps(), deletedAt: null });
  },
};
