import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrbitConfig } from '../config/orbit-config.js';
import { TransactionRunner } from '../shared/application/transaction-runner.js';
import { Clock } from '../shared/domain/clock.js';
import { StreamLimits } from '../shared/http/stream-limits.js';
import { Database } from '../shared/infrastructure/database.js';
import { SystemClock } from '../shared/infrastructure/system-clock.js';
import { dataSourceOptions } from './data-source-options.js';

/** The process-wide pieces every module shares: configuration, clock, database, transactions, stream caps. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: OrbitConfig, databaseUrl: string): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(databaseUrl, config.dbPoolSize),
          retryAttempts: 3,
          retryDelay: 1000,
        }),
      ],
      providers: [
        { provide: OrbitConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        Database,
        { provide: TransactionRunner, useExisting: Database },
        {
          provide: StreamLimits,
          useValue: new StreamLimits({ perCaller: config.streamsPerCaller, perNode: config.streamsPerNode }),
        },
      ],
      exports: [OrbitConfig, Clock, Database, TransactionRunner, StreamLimits],
    };
  }
}
