import { Module } from '@nestjs/common';
import { ExecutionRepository } from './application/execution.repository.js';
import { ExecutionOutputRepository } from './application/execution-output.repository.js';
import { TypeOrmExecutionOutputRepository } from './infrastructure/typeorm-execution-output.repository.js';
import { TypeOrmExecutionRepository } from './infrastructure/typeorm-execution.repository.js';

/** The execution repositories alone, so that the jobs module can guard deletions without a module cycle. */
@Module({
  providers: [
    { provide: ExecutionRepository, useClass: TypeOrmExecutionRepository },
    { provide: ExecutionOutputRepository, useClass: TypeOrmExecutionOutputRepository },
  ],
  exports: [ExecutionRepository, ExecutionOutputRepository],
})
export class ExecutionsPersistenceModule {}
