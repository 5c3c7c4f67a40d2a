import { DynamicModule, Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as PinoRoot } from 'pino';
import { ExecutionMetrics } from '../executions/application/execution-metrics.js';
import { HealthController } from './http/health.controller.js';
import { MetricsController } from './http/metrics.controller.js';
import { PromMetrics } from './infrastructure/prom-metrics.js';

/** Logs (pino), metrics (Prometheus) and health checks (terminus). */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(logger: PinoRoot): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        LoggerModule.forRoot({
          pinoHttp: {
            logger,
            // one line per request at debug; health checks and scrapes are not worth a line
            customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'debug'),
            autoLogging: { ignore: (request) => /^\/(health|metrics)/.test(request.url ?? '') },
          },
        }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [PromMetrics, { provide: ExecutionMetrics, useExisting: PromMetrics }],
      exports: [ExecutionMetrics, PromMetrics],
    };
  }
}
