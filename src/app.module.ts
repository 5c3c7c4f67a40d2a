import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { OrbitConfig } from './config/orbit-config.js';
import { DatabaseModule } from './database/database.module.js';
import { ExecutionsModule } from './executions/executions.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { RuntimeModule } from './runtime/runtime.module.js';
import { ErrorFilter } from './shared/http/domain-error.filter.js';

@Module({})
export class AppModule {
  static forRoot(config: OrbitConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(config, databaseUrl),
        JobsModule,
        ExecutionsModule,
        ...(config.role === 'api' ? [] : [RuntimeModule]),
      ],
      providers: [{ provide: APP_FILTER, useClass: ErrorFilter }],
    };
  }
}
