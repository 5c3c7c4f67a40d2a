import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { loadConfig, OrbitConfig, Role } from '../../src/config/orbit-config.js';
import { configureHttp } from '../../src/http-app.js';
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
}

/**
 * The real HTTP app on a fresh database with the real migrations. Pass a clock to freeze
 * time, env to change settings, role `all` for a node with the runtime.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const config = loadConfig({ ORBIT_ROLE: options.role ?? 'api', DATABASE_URL: db.url, ...options.env }, []);
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config, db.url)] });
  if (options.clock) builder = builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  const app = configureHttp(moduleRef.createNestApplication<NestExpressApplication>({ logger: false }));
  if (options.init !== false) await app.init();
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
