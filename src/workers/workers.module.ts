import { Global, Module } from '@nestjs/common';
import { WorkerRegistry } from './application/worker-registry.js';
import { WorkersController } from './http/workers.controller.js';
import { TypeOrmWorkerRegistry } from './infrastructure/typeorm-worker-registry.js';

@Global()
@Module({
  controllers: [WorkersController],
  providers: [{ provide: WorkerRegistry, useClass: TypeOrmWorkerRegistry }],
  exports: [WorkerRegistry],
})
export class WorkersModule {}
