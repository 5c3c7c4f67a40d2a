import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { TimelineService } from './application/timeline.service.js';
import { TimelineController } from './http/timeline.controller.js';

/**
 * A job's slots and their fates: a read across jobs, executions and events, each asked through
 * a port it owns. A module of its own, since no other may import all three (executions may not
 * import events), and every role that serves the API serves it (the runtime is not loaded there).
 */
@Module({
  imports: [JobsModule, ExecutionsModule, EventsModule],
  controllers: [TimelineController],
  providers: [TimelineService],
})
export class TimelineModule {}
