import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import type { Logger as PinoRoot } from 'pino';
import { AppModule } from '../../src/app.module.js';
import { loadConfig, OrbitConfig, Role } from '../../src/config/orbit-config.js';
import { configureHttp, createHttpAdapter, HTTP_APP_OPTIONS } from '../../src/http-app.js';
import { Clock } from '../../src/shared/domain/clock.js';
import { createTestDatabase, TestDatabase } from './test-database.js';

export interface TestApp {
  app: INestApplication;
  db: TestDatabase;
  config: OrbitConfig;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** `api` (default) has no runtime; `all` adds scheduler, worker and lease reaper. */
  role?: Role;
  /** false: build the app without starting it, so no loop runs and tests drive passes themselves. */
  init?: boolean;
  /** Share a database created earlier (several nodes on one PostgreSQL). */
  db?: TestDatabase;
  /**
   * true (default): a request without an Authorization header is sent with the admin token,
   * so tests about other things need not repeat it (a browser's requests excepted: the dashboard
   * signs in by itself). Tests of authentication pass false.
   */
  asAdmin?: boolean;
  /** Where the app's log lines go (a pino logger); by default LOG_LEVEL is silent. */
  logger?: PinoRoot;
}

/** ORBIT_ADMIN_TOKEN of every test app. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * The real HTTP app on a fresh database with the real migrations. Pass a clock to freeze
 * time, env to change settings, role `all` for a node with the runtime.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const config = loadConfig(
    {
      ORBIT_ROLE: options.role ?? 'api',
      DATABASE_URL: db.url,
      ORBIT_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      ORBIT_RATE_LIMIT_PER_MINUTE: '0',
      ORBIT_SIGN_IN_FAILURES_PER_MINUTE: '0',
      LOG_LEVEL: 'silent',
      // the native launcher unless it could not be built (see global-setup.ts); the "node spawner" jest project says node
      ORBIT_LAUNCHER:
        process.env.ORBIT_TEST_LAUNCHER ?? (process.env.ORBIT_TEST_NATIVE_LAUNCHER === 'missing' ? 'node' : 'native'),
      ...options.env,
    },
    [],
  );
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config, db.url, options.logger)] });
  if (options.clock) builder = builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), {
    ...HTTP_APP_OPTIONS,
    logger: false,
  });
  if (options.logger) app.useLogger(app.get(NestPinoLogger));
  if (options.asAdmin !== false) {
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (request, _reply, done) => {
        // a browser's request (it says where it fetches from) signs in as the dashboard makes it
        if (request.headers['sec-fetch-mode'] === undefined)
          request.headers.authorization ??= `Bearer ${TEST_ADMIN_TOKEN}`;
        done();
      });
  }
  configureHttp(app);
  if (options.init !== false) {
    await app.init();
    await app.getHttpAdapter().getInstance().ready(); // plugins (Swagger UI's static assets) load here
  }
  return {
    app,
    db,
    config,
    close: async () => {
      await app.close();
      if (!options.db) await db.drop();
    },
  };
}
