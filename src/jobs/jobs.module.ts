import { Module } from '@nestjs/common';
import { ExecutionRemovalGuard } from '../executions/application/execution-removal-guard.js';
import { ExecutionsPersistenceModule } from '../executions/executions-persistence.module.js';
import { JobRepository } from './application/job.repository.js';
import { JobRemovalGuard } from './application/job-removal-guard.js';
import { JobsService } from './application/jobs.service.js';
import { JobsController } from './http/jobs.controller.js';
import { SchedulesController } from './http/schedules.controller.js';
import { TypeOrmJobRepository } from './infrastructure/typeorm-job.repository.js';

@Module({
  imports: [ExecutionsPersistenceModule],
  controllers: [JobsController, SchedulesController],
  providers: [
    JobsService,
    { provide: JobRepository, useClass: TypeOrmJobRepository },
    { provide: JobRemovalGuard, useClass: ExecutionRemovalGuard },
  ],
  exports: [JobsService, JobRepository],
})
export class JobsModule {}
