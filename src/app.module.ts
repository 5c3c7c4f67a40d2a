import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AlertsModule } from './alerts/alerts.module.js';
import { ApplyModule } from './apply/apply.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { BackgroundWork, backgroundModulesOf } from './background-work.js';
import { AuthGuard } from './auth/http/auth.guard.js';
import { RateLimitGuard } from './auth/http/rate-limit.guard.js';
import { OrbitConfig } from './config/orbit-config.js';
import { DatabaseModule } from './postgres/database.module.js';
import { EventsModule } from './events/events.module.js';
import { ExecutionsModule } from './executions/executions.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { createRootLogger } from './observability/infrastructure/logging.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { HttpErrorFilter } from './shared/http/http-error.filter.js';
import { TimelineModule } from './timeline/timeline.module.js';
import { WorkersModule } from './workers/workers.module.js';

@Module({})
export class AppModule {
  static forRoot(config: OrbitConfig, databaseUrl: string, logger = createRootLogger(config)): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(config, databaseUrl),
        ObservabilityModule.forRoot(logger),
        WorkersModule,
        AuthModule,
        AuditModule,
        JobsModule,
        ExecutionsModule,
        EventsModule,
        AlertsModule,
        ApplyModule,
        TimelineModule,
        ...backgroundModulesOf(config.role),
      ],
      providers: [
        BackgroundWork,
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useExisting: AuthGuard },
      ],
    };
  }
}
