import 'reflect-metadata';
import { ConfigError, forgetSecretSettings, loadConfig } from '../config/orbit-config.js';
import { startDatabase } from './start-database.js';
import { migrate } from './migrate.js';

/** `npm run migrate`: applies the migrations to DATABASE_URL, or to the embedded PostgreSQL. */
async function main(): Promise<void> {
  const config = loadConfig();
  forgetSecretSettings();
  const database = await startDatabase(config, console.log);
  try {
    const applied = await migrate(database.url);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to apply: the schema is current');
  } finally {
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exitCode = 1;
});
