import { Module } from '@nestjs/common';
import { ConcurrencyGroupRepository } from './application/concurrency-group.repository.js';
import { ConcurrencyGroupsService } from './application/concurrency-groups.service.js';
import { JobRepository } from './application/job.repository.js';
import { JobAlertChannels } from './application/job-alert-channels.js';
import { JobRemovalGuards } from './application/job-removal-guard.js';
import { JobRuns } from './application/job-runs.js';
import { JobsService } from './application/jobs.service.js';
import { ConcurrencyGroupsController } from './http/concurrency-groups.controller.js';
import { AuditedConcurrencyGroup, AuditedJob } from './http/audited-states.js';
import { JobsController } from './http/jobs.controller.js';
import { SchedulesController } from './http/schedules.controller.js';
import { SqlConcurrencyGroupRepository } from './infrastructure/sql-concurrency-group.repository.js';
import { SqlJobRepository } from './infrastructure/sql-job.repository.js';

/** Jobs and their rules; /jobs, /concurrency-groups and /schedules. */
@Module({
  controllers: [JobsController, ConcurrencyGroupsController, SchedulesController],
  providers: [
    JobsService,
    JobRemovalGuards,
    JobAlertChannels,
    JobRuns,
    { provide: JobRepository, useClass: SqlJobRepository },
    ConcurrencyGroupsService,
    AuditedJob,
    AuditedConcurrencyGroup,
    { provide: ConcurrencyGroupRepository, useClass: SqlConcurrencyGroupRepository },
  ],
  exports: [JobsService, JobRepository, JobRemovalGuards, JobAlertChannels, JobRuns],
})
export class JobsModule {}
