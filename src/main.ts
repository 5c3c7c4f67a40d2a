import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as NestPinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { TokensService, UnsafeBindError } from './auth/application/tokens.service.js';
import { ConfigError, forgetSecretSettings, loadConfig, OrbitConfig } from './config/orbit-config.js';
import { migrate } from './postgres/migrate.js';
import { RunningDatabase, startDatabase } from './postgres/start-database.js';
import { configureHttp, createHttpAdapter, HTTP_APP_OPTIONS } from './http-app.js';
import { createRootLogger } from './observability/infrastructure/logging.js';

/**
 * One binary, three roles: `all` (API + scheduler + worker), `api`, `worker`. The shutdown
 * order is ours: stop taking work, let the runtime finish, close the app, stop the database.
 */
async function main(): Promise<void> {
  let config: OrbitConfig;
  try {
    config = loadConfig();
    forgetSecretSettings();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const root = createRootLogger(config);
  const logger = root.child({ context: 'Orbit' });
  for (const warning of config.warnings) logger.warn(warning);

  let database: RunningDatabase;
  try {
    database = await startDatabase(config, (line) => logger.info(line));
  } catch (error) {
    // the reason is PostgreSQL's own (a port, a folder): a stack trace would only hide it
    logger.error(error instanceof Error ? error.message : String(error));
    root.flush();
    process.exit(1);
  }
  let closing: Promise<void> | undefined;
  const shutdown = (app?: { close(): Promise<void> }) => {
    closing ??= (async () => {
      logger.info('Shutting down');
      await app?.close().catch((error: unknown) => logger.error(`While closing: ${String(error)}`));
      await database.stop();
      logger.info('Stopped');
      root.flush();
    })();
    return closing;
  };

  try {
    const applied = await migrate(database.url);
    if (applied.length > 0) logger.info(`Applied migrations: ${applied.join(', ')}`);

    const module = AppModule.forRoot(config, database.url, root);
    const http =
      config.role === 'worker'
        ? undefined
        : configureHttp(
            await NestFactory.create<NestFastifyApplication>(module, createHttpAdapter(config), {
              ...HTTP_APP_OPTIONS,
              bufferLogs: true,
            }),
          );
    const app = http ?? (await NestFactory.createApplicationContext(module, { bufferLogs: true }));
    app.useLogger(app.get(NestPinoLogger));
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        process.once(signal, () => process.exit(130)); // a second Ctrl-C does not wait
        void shutdown(app).then(() => process.exit(0));
      });
    }
    if (http) {
      await http.get(TokensService).ensureAccess(config.host);
      await http.listen(config.port, config.host);
      const address = `http://${config.host}:${config.port}`;
      logger.info(
        `Orbit (${config.role}) listening on ${address}; dashboard at ${address}/ui/, Swagger UI at ${address}/docs`,
      );
    } else {
      await app.init();
      logger.info(`Orbit (${config.role}) running`);
    }
  } catch (error) {
    const refused = error instanceof UnsafeBindError || error instanceof ConfigError;
    logger.error(refused ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error));
    await shutdown();
    process.exit(refused ? 2 : 1);
  }
}

void main();
