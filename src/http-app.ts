import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import { OrbitConfig } from './config/orbit-config.js';
import { RequestLog } from './observability/http/request-log.js';
import { BodyShapePipe } from './shared/http/body-shape.pipe.js';
import { validationPipe } from './shared/http/validation.js';

const strictHeaders = helmet();
/** Swagger UI runs an inline script of its own; everything else gets the strict policy. */
const docsHeaders = helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"] } } });

/**
 * What every HTTP app gets, in production and in tests alike: security headers, bounded
 * JSON bodies (64 KiB, 413 beyond), strict validation, CORS only for configured origins, and
 * Swagger UI with its Authorize button for bearer tokens.
 */
export function configureHttp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get(OrbitConfig);
  app.use(app.get(RequestLog).handle);
  // No ETag: hashing every JSON answer to support If-None-Match costs each request, and the
  // answers (lists, executions in progress) change too often for clients to revalidate them.
  app.set('etag', false);
  app.disable('x-powered-by'); // helmet would remove it from every answer anyway
  app.use((request: { path: string }, response: unknown, next: () => void) =>
    (request.path.startsWith('/docs') ? docsHeaders : strictHeaders)(request as never, response as never, next),
  );
  if (config.corsOrigins.length > 0) app.enableCors({ origin: config.corsOrigins });
  app.useBodyParser('json', { limit: '64kb' });
  app.useGlobalPipes(new BodyShapePipe(), validationPipe());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Orbit')
      .setDescription(
        'Jobs say what to run and when; every run is an Execution with a guarded lifecycle: ' +
          'QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED, and QUEUED → CANCELLED. ' +
          'Every endpoint needs a bearer token (Authorize, above): viewer for reading, operator to ' +
          'trigger, cancel and drive executions, admin to change jobs and tokens.',
      )
      .setVersion('0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An Orbit API token (orbit_…)' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
