import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { AppliedJobs } from './application/applied-jobs.js';
import { ApplyService } from './application/apply.service.js';
import { ChannelsSection } from './application/channels-section.js';
import { JobsSection } from './application/jobs-section.js';
import { ApplyController } from './http/apply.controller.js';
import { SqlAppliedJobs } from './infrastructure/sql-applied-jobs.js';

/** Jobs as code: POST /apply and GET /orbit-file, over the jobs and alerts modules' services. */
@Module({
  imports: [JobsModule, AlertsModule],
  controllers: [ApplyController],
  providers: [ApplyService, ChannelsSection, JobsSection, { provide: AppliedJobs, useClass: SqlAppliedJobs }],
})
export class ApplyModule {}
