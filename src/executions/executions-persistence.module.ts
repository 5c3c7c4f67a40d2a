import { Module } from '@nestjs/common';
import { ExecutionRepository } from './application/execution.repository.js';
import { TypeOrmExecutionRepository } from './infrastructure/typeorm-execution.repository.js';

/** The execution repository alone, so that the jobs module can guard deletions without a module cycle. */
@Module({
  providers: [{ provide: ExecutionRepository, useClass: TypeOrmExecutionRepository }],
  exports: [ExecutionRepository],
})
export class ExecutionsPersistenceModule {}
