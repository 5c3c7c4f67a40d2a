import { Global, Module } from '@nestjs/common';
import { WorkerRegistry } from './application/worker-registry.js';
import { WorkerRuns } from './application/worker-runs.js';
import { WorkerDrainController } from './http/worker-drain.controller.js';
import { WorkerRunsController } from './http/worker-runs.controller.js';
import { WorkersController } from './http/workers.controller.js';
import { SqlWorkerRegistry } from './infrastructure/sql-worker-registry.js';

@Global()
@Module({
  controllers: [WorkersController, WorkerDrainController, WorkerRunsController],
  providers: [{ provide: WorkerRegistry, useClass: SqlWorkerRegistry }, WorkerRuns],
  exports: [WorkerRegistry, WorkerRuns],
})
export class WorkersModule {}
