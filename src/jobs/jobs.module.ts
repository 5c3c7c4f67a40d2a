import { Module } from '@nestjs/common';
import { JobRepository } from './application/job.repository.js';
import { JobAlertChannels } from './application/job-alert-channels.js';
import { JobRemovalGuards } from './application/job-removal-guard.js';
import { JobsService } from './application/jobs.service.js';
import { SchedulesController } from './http/schedules.controller.js';
import { TypeOrmJobRepository } from './infrastructure/typeorm-job.repository.js';

/** Jobs and their rules, and /schedules. The /jobs routes are served by the executions module (see JobsController). */
@Module({
  controllers: [SchedulesController],
  providers: [
    JobsService,
    JobRemovalGuards,
    JobAlertChannels,
    { provide: JobRepository, useClass: TypeOrmJobRepository },
  ],
  exports: [JobsService, JobRepository, JobRemovalGuards, JobAlertChannels],
})
export class JobsModule {}
