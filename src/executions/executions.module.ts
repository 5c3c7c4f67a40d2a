import { Module } from '@nestjs/common';
import { OrbitConfig } from '../config/orbit-config.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { ExecutionReadModel } from './application/execution-read-model.js';
import { ExecutionsService } from './application/executions.service.js';
import { RetrySettings } from './application/retry-settings.js';
import { ExecutionsPersistenceModule } from './executions-persistence.module.js';
import { ExecutionsController } from './http/executions.controller.js';
import { SqlExecutionReadModel } from './infrastructure/sql-execution-read-model.js';

@Module({
  imports: [JobsModule, ExecutionsPersistenceModule],
  controllers: [ExecutionsController],
  providers: [
    ExecutionsService,
    { provide: ExecutionReadModel, useClass: SqlExecutionReadModel },
    {
      provide: RetrySettings,
      inject: [OrbitConfig],
      useFactory: (config: OrbitConfig): RetrySettings => ({
        baseMs: config.retryBackoffBaseMs,
        maxMs: config.retryBackoffMaxMs,
      }),
    },
  ],
  exports: [ExecutionsService, ExecutionsPersistenceModule],
})
export class ExecutionsModule {}
