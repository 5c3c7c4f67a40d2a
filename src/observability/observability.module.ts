import { DynamicModule, Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoRoot } from 'pino';
import { ExecutionMetrics } from '../executions/application/execution-metrics.js';
import { ExecutionsModule } from '../executions/executions.module.js';
import { Heartbeats } from './application/heartbeats.js';
import { HealthController } from './http/health.controller.js';
import { MetricsController } from './http/metrics.controller.js';
import { RequestLog, ROOT_LOGGER } from './http/request-log.js';
import { PromMetrics } from './infrastructure/prom-metrics.js';

/** Logs (pino), metrics (Prometheus) and health checks (terminus), with the loops other modules register. */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(logger: PinoRoot): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        // nestjs-pino is Nest's logger; requests are logged by RequestLog, not by its pino-http middleware
        LoggerModule.forRoot({ pinoHttp: { logger }, forRoutes: [] }),
        // the gauges read the history's extent and retention's health through its ports
        ExecutionsModule,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        PromMetrics,
        { provide: ExecutionMetrics, useExisting: PromMetrics },
        { provide: ROOT_LOGGER, useValue: logger },
        RequestLog,
        Heartbeats,
      ],
      exports: [ExecutionMetrics, PromMetrics, RequestLog, Heartbeats],
    };
  }
}
