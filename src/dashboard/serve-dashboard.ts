import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../shared/http/http-error.filter.js';
import { securityHeaders } from '../shared/http/security-headers.js';

/** Where Vite puts the dashboard (web/vite.config.ts): dist/web, seen from the build or from the sources (tests). */
const DASHBOARD_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../dist/web/' : '../../web/', import.meta.url),
);

export const DASHBOARD_PREFIX = '/ui';

/**
 * The dashboard's page may run and style only what its own origin serves: no inline script or
 * style, no eval, no other origin, and DOM sinks such as innerHTML refuse plain strings (Trusted
 * Types), so a value from the API can only ever become text. Orbit serves plain HTTP by default
 * (127.0.0.1), so requests are not upgraded to HTTPS.
 */
export const DASHBOARD_HEADERS = securityHeaders({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'"],
      'img-src': ["'self'"],
      'font-src': ["'self'"],
      'connect-src': ["'self'"],
      'manifest-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
      'object-src': ["'none'"],
      'require-trusted-types-for': ["'script'"],
      'trusted-types': ["'none'"],
    },
  },
});

/** Vite names every asset by a hash of its content: a name never changes meaning. */
const ASSETS = `${DASHBOARD_PREFIX}/assets/`;

/**
 * Serves the built dashboard under /ui/: its files, and index.html for any other path below
 * /ui/ (the page routes on the client), but a JSON 404 for a missing asset. `/` leads there.
 */
export function serveDashboard(fastify: FastifyInstance): void {
  fastify.get('/', (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`));
  const built = existsSync(join(DASHBOARD_DIR, 'index.html'));
  void fastify.register(
    async (scope) => {
      if (!built) {
        scope.get('/*', (_request, reply) => notBuilt(reply));
        scope.get('/', (_request, reply) => notBuilt(reply));
        return;
      }
      await scope.register(fastifyStatic, {
        root: DASHBOARD_DIR,
        index: false,
        setHeaders: (reply, path) => {
          const immutable = path.startsWith(join(DASHBOARD_DIR, 'assets'));
          reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });
      const page = (request: FastifyRequest, reply: FastifyReply) =>
        request.url.startsWith(ASSETS) || !['GET', 'HEAD'].includes(request.method)
          ? reply.code(404).send(errorBody(404, `Cannot ${request.method} ${request.url}`))
          : reply.header('cache-control', 'no-cache').sendFile('index.html');
      scope.get('/', page);
      scope.setNotFoundHandler(page);
    },
    { prefix: DASHBOARD_PREFIX },
  );
}

function notBuilt(reply: FastifyReply): FastifyReply {
  const message = 'The dashboard is not built: run `npm run build` (npm start does it)';
  return reply.code(404).send(errorBody(404, message));
}
