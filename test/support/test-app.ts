import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { loadConfig, OrbitConfig } from '../../src/config/orbit-config.js';
import { configureHttp } from '../../src/http-app.js';
import { Clock } from '../../src/shared/domain/clock.js';
import { createTestDatabase, TestDatabase } from './test-database.js';

export interface TestApp {
  app: INestApplication;
  db: TestDatabase;
  config: OrbitConfig;
  close(): Promise<void>;
}

/**
 * The real HTTP app (role `api`: no scheduler, no worker) on a fresh database with the real
 * migrations. Pass a clock to freeze time, env to change settings.
 */
export async function createTestApp(options: { clock?: Clock; env?: Record<string, string> } = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({ ORBIT_ROLE: 'api', DATABASE_URL: db.url, ...options.env }, []);
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config, db.url)] });
  if (options.clock) builder = builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  const app = configureHttp(moduleRef.createNestApplication<NestExpressApplication>({ logger: false }));
  await app.init();
  return {
    app,
    db,
    config,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
