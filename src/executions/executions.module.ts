import { Module } from '@nestjs/common';
import { OrbitConfig } from '../config/orbit-config.js';
import { JobRemovalGuards } from '../jobs/application/job-removal-guard.js';
import { JobRuns } from '../jobs/application/job-runs.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { WorkerRuns } from '../workers/application/worker-runs.js';
import { Cancellations, ReplacingRuns } from './application/cancellations.js';
import { ExecutionReadModel } from './application/execution-read-model.js';
import { ExecutionRemovalGuard } from './application/execution-removal-guard.js';
import { ExecutionRepository } from './application/execution.repository.js';
import { ExecutionOutputRepository } from './application/execution-output.repository.js';
import { ExecutionRetentionRepository } from './application/execution-retention.repository.js';
import { ExecutionsService } from './application/executions.service.js';
import { HistoryDays } from './application/history-days.js';
import { JobHistory } from './application/job-history.js';
import { JobHistoryService } from './application/job-history.service.js';
import { OUTPUT_POLL_MS, OutputPolls } from './application/output-polls.js';
import { OverviewService } from './application/overview.service.js';
import { RunsOverview } from './application/runs-overview.js';
import { RunsActivity } from './application/runs-activity.js';
import { RunningExecutions, WorkerRunsFromExecutions } from './application/running-executions.js';
import { RetentionAlarms } from './application/retention-alarms.js';
import { RetentionHealthRepository } from './application/retention-health.repository.js';
import { RetrySettings } from './application/retry-settings.js';
import { ScheduledRuns } from './application/scheduled-runs.js';
import { ExecutionsController } from './http/executions.controller.js';
import { OverviewController } from './http/overview.controller.js';
import { SqlExecutionReadModel } from './infrastructure/sql-execution-read-model.js';
import { SqlHistoryDays } from './infrastructure/sql-history-days.js';
import { SqlJobHistory } from './infrastructure/sql-job-history.js';
import { SqlRunsOverview } from './infrastructure/sql-runs-overview.js';
import { SqlRunsActivity } from './infrastructure/sql-runs-activity.js';
import { SqlRunningExecutions } from './infrastructure/sql-running-executions.js';
import { SqlReplacingRuns } from './infrastructure/sql-replacing-runs.js';
import { SqlExecutionOutputRepository } from './infrastructure/sql-execution-output.repository.js';
import { SqlExecutionRetentionRepository } from './infrastructure/sql-execution-retention.repository.js';
import { SqlExecutionRepository } from './infrastructure/sql-execution.repository.js';
import { SqlRetentionHealthRepository } from './infrastructure/sql-retention-health.repository.js';
import { SqlScheduledRuns } from './infrastructure/sql-scheduled-runs.js';

@Module({
  imports: [JobsModule],
  controllers: [ExecutionsController, OverviewController],
  providers: [
    ExecutionsService,
    Cancellations,
    JobHistoryService,
    OverviewService,
    ExecutionRemovalGuard,
    { provide: ExecutionRepository, useClass: SqlExecutionRepository },
    { provide: ExecutionOutputRepository, useClass: SqlExecutionOutputRepository },
    { provide: ExecutionRetentionRepository, useClass: SqlExecutionRetentionRepository },
    { provide: HistoryDays, useClass: SqlHistoryDays },
    { provide: RetentionHealthRepository, useClass: SqlRetentionHealthRepository },
    RetentionAlarms,
    { provide: ExecutionReadModel, useClass: SqlExecutionReadModel },
    { provide: JobHistory, useClass: SqlJobHistory },
    { provide: ScheduledRuns, useClass: SqlScheduledRuns },
    { provide: RunsOverview, useClass: SqlRunsOverview },
    { provide: RunsActivity, useClass: SqlRunsActivity },
    { provide: RunningExecutions, useClass: SqlRunningExecutions },
    { provide: ReplacingRuns, useClass: SqlReplacingRuns },
    WorkerRunsFromExecutions,
    {
      provide: OutputPolls,
      inject: [ExecutionsService],
      useFactory: (executions: ExecutionsService) => new OutputPolls(executions, OUTPUT_POLL_MS),
    },
    {
      provide: RetrySettings,
      inject: [OrbitConfig],
      useFactory: (config: OrbitConfig): RetrySettings => ({
        baseMs: config.retryBackoffBaseMs,
        maxMs: config.retryBackoffMaxMs,
      }),
    },
  ],
  exports: [
    ExecutionsService,
    OutputPolls,
    ExecutionRepository,
    ExecutionOutputRepository,
    ExecutionRetentionRepository,
    HistoryDays,
    RetentionHealthRepository,
    RetentionAlarms,
    ScheduledRuns,
  ],
})
export class ExecutionsModule {
  /**
   * The jobs module asks its removal guards before a job goes, and reads the runs of its jobs
   * from JobRuns; the workers module reads what each worker runs from WorkerRuns: this module's
   * guard, history and running executions are bound there.
   */
  constructor(
    guards: JobRemovalGuards,
    guard: ExecutionRemovalGuard,
    runs: JobRuns,
    history: JobHistoryService,
    workerRuns: WorkerRuns,
    running: WorkerRunsFromExecutions,
  ) {
    guards.register(guard);
    runs.bind(history);
    workerRuns.bind(running);
  }
}
