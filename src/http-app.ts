import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ORBIT_FILE_SCHEMA_PATH, orbitFileSchema } from './apply/http/orbit-file-schema.js';
import { RequestLimits } from './auth/http/request-limits.js';
import { OrbitConfig } from './config/orbit-config.js';
import { DASHBOARD_HEADERS, DASHBOARD_PREFIX, serveDashboard } from './dashboard/serve-dashboard.js';
import { RequestLog } from './observability/http/request-log.js';
import { BODY_LIMIT } from './shared/http/body-limit.js';
import { errorBody } from './shared/http/http-error.filter.js';
import { securityHeaders } from './shared/http/security-headers.js';
import { BodyShapePipe } from './shared/http/body-shape.pipe.js';
import { validationPipe } from './shared/http/validation.js';
import { ORBIT_VERSION } from './shared/orbit-version.js';

/** Swagger UI shows the tags in this order: what users come for first, the plumbing last. */
export const API_TAGS: ReadonlyArray<readonly [string, string]> = [
  ['jobs', 'What to run and when'],
  ['executions', 'Every run of a job, its lifecycle and its output'],
  ['overview', 'The whole system at a glance'],
  ['events', 'Every state change, in order'],
  ['alerts', 'Channels and the deliveries of alerts'],
  ['apply', 'Jobs as code: an orbit file applied in one transaction'],
  ['workers', 'The worker processes'],
  ['concurrency-groups', 'Limits shared by the runs of several jobs'],
  ['tokens', 'API tokens and who the caller is'],
  ['sign-in', 'Signing people in through an OIDC issuer, and out'],
  ['teams', 'Teams, the roles their grants give, and the people who signed in'],
  ['audit', 'Who changed what'],
  ['health', 'Liveness and readiness'],
  ['metrics', 'Prometheus metrics'],
];

/**
 * Options for `NestFactory.create` and `createNestApplication` beside the adapter: Nest's own
 * body parsers stay off (they would add form bodies), so JSON is the one type a body can have.
 */
export const HTTP_APP_OPTIONS = { bodyParser: false } as const;

/**
 * The Fastify adapter every HTTP app is built on, which finds the client's address (see
 * ORBIT_TRUSTED_PROXIES). JSON is the only body type (anything else is a 415). `__proto__` and `constructor` keys are left to JSON.parse, which never sets a prototype
 * from them, so that BodyShapePipe can refuse them by name in a 400, as for any unknown field.
 */
export function createHttpAdapter({ trustedProxies }: Pick<OrbitConfig, 'trustedProxies'>): FastifyAdapter {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    // request.ip: the socket's address, or behind these proxies the nearest untrusted address in X-Forwarded-For
    trustProxy: trustedProxies.length > 0 ? trustedProxies : false,
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // the router refuses a malformed URL before any hook or filter runs: same shape all the same
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const statusCode = error.statusCode ?? 400;
      void reply.headers(STRICT_HEADERS).code(statusCode).send(errorBody(statusCode, error.message));
    },
  });
  adapter.getInstance().removeContentTypeParser('text/plain');
  return adapter;
}

/**
 * helmet's strict defaults on every answer, but Swagger UI (/docs) runs an inline script of its
 * own, and the dashboard (/ui) has a stricter policy still.
 */
const STRICT_HEADERS = securityHeaders();
const DOCS_HEADERS = securityHeaders({
  contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"] } },
});
const headersFor = (url: string) =>
  url.startsWith('/docs') ? DOCS_HEADERS : url.startsWith(DASHBOARD_PREFIX) ? DASHBOARD_HEADERS : STRICT_HEADERS;

/**
 * What every HTTP app gets, in production and in tests alike: a request log line per request,
 * security headers, strict validation, CORS only for configured origins, Swagger UI with its
 * Authorize button for bearer tokens, the JSON Schema of orbit files (open, but rate-limited),
 * and the dashboard under /ui/. (No ETag and no X-Powered-By: Fastify sends neither.)
 */
export function configureHttp(app: NestFastifyApplication): NestFastifyApplication {
  const config = app.get(OrbitConfig);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', app.get(RequestLog).onRequest);
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.headers(headersFor(request.url));
    done();
  });
  if (config.corsOrigins.length > 0) app.enableCors({ origin: config.corsOrigins });
  app.useGlobalPipes(new BodyShapePipe(), validationPipe());
  const builder = API_TAGS.reduce(
    (doc, [name, description]) => doc.addTag(name, description),
    new DocumentBuilder()
      .setTitle('Orbit')
      .setDescription(
        'Jobs say what to run and when; every run is an Execution with a guarded lifecycle: ' +
          'QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED, and QUEUED → CANCELLED. ' +
          'Every endpoint needs a bearer token (Authorize, above): viewer for reading, operator to ' +
          'trigger, cancel and drive executions, admin to change jobs and tokens.',
      )
      .setVersion(ORBIT_VERSION)
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An Orbit API token (orbit_…)' }),
  );
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  const fileSchema = orbitFileSchema(document);
  const limits = app.get(RequestLimits);
  fastify.get(ORBIT_FILE_SCHEMA_PATH, (request, reply) => {
    const refusal = limits.refusal(request);
    if (!refusal) return reply.send(fileSchema);
    return reply
      .header('retry-after', String(refusal.retryAfterSeconds))
      .code(429)
      .send(errorBody(429, refusal.message));
  });
  serveDashboard(fastify);
  return app;
}
