import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { validationPipe } from './shared/http/validation.js';

/** What every HTTP app gets, in production and in tests alike: validation and Swagger UI. */
export function configureHttp(app: NestExpressApplication): NestExpressApplication {
  app.useBodyParser('json', { limit: '64kb' });
  app.useGlobalPipes(validationPipe());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Orbit')
      .setDescription(
        'Jobs say what to run and when; every run is an Execution with a guarded lifecycle: ' +
          'QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED, and QUEUED → CANCELLED.',
      )
      .setVersion('0.1.0')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
