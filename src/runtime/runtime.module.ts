import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { ChainConsumer } from './application/chain-consumer.js';
import { ChainLoop } from './application/chain-loop.js';
import { CommandRunner } from './application/command-runner.js';
import { LeaseReaperService } from './application/lease-reaper.service.js';
import { PlacementSweep } from './application/placement-sweep.js';
import { OverdueWatcherService } from './application/overdue-watcher.service.js';
import { RetentionHealthWatch } from './application/retention-health-watch.js';
import { RetentionService } from './application/retention.service.js';
import { SchedulerService } from './application/scheduler.service.js';
import { WorkerService } from './application/worker.service.js';
import { PgNotificationListener } from './infrastructure/pg-notification-listener.js';
import { LauncherCommandRunner } from './infrastructure/launcher-command-runner.js';

/** Scheduler, worker, lease reaper, placement and retention sweeps, the late and long-running watch and the chains consumer (the roles that load it: background-work.ts). */
@Module({
  imports: [JobsModule, ExecutionsModule, EventsModule],
  providers: [
    SchedulerService,
    WorkerService,
    LeaseReaperService,
    PlacementSweep,
    RetentionService,
    RetentionHealthWatch,
    OverdueWatcherService,
    PgNotificationListener,
    ChainConsumer,
    ChainLoop,
    { provide: CommandRunner, useClass: LauncherCommandRunner },
  ],
  exports: [
    SchedulerService,
    WorkerService,
    LeaseReaperService,
    PlacementSweep,
    RetentionService,
    OverdueWatcherService,
  ],
})
export class RuntimeModule {}
