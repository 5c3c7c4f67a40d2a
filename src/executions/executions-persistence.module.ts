import { Module } from '@nestjs/common';
import { ExecutionRepository } from './application/execution.repository.js';
import { ExecutionOutputRepository } from './application/execution-output.repository.js';
import { ExecutionRetentionRepository } from './application/execution-retention.repository.js';
import { TypeOrmExecutionOutputRepository } from './infrastructure/typeorm-execution-output.repository.js';
import { TypeOrmExecutionRetentionRepository } from './infrastructure/typeorm-execution-retention.repository.js';
import { TypeOrmExecutionRepository } from './infrastructure/typeorm-execution.repository.js';

/** The execution repositories alone, so that the jobs module can guard deletions without a module cycle. */
@Module({
  providers: [
    { provide: ExecutionRepository, useClass: TypeOrmExecutionRepository },
    { provide: ExecutionOutputRepository, useClass: TypeOrmExecutionOutputRepository },
    { provide: ExecutionRetentionRepository, useClass: TypeOrmExecutionRetentionRepository },
  ],
  exports: [ExecutionRepository, ExecutionOutputRepository, ExecutionRetentionRepository],
})
export class ExecutionsPersistenceModule {}
