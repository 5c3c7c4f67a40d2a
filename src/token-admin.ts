import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TokensService } from './auth/application/tokens.service.js';
import { AuthModule } from './auth/auth.module.js';
import { ConfigError, forgetSecretSettings, loadConfig, OrbitConfig } from './config/orbit-config.js';
import { DatabaseModule } from './postgres/database.module.js';
import { migrate } from './postgres/migrate.js';
import { startDatabase } from './postgres/start-database.js';

const USAGE = `Usage: orbit token create --name <name> --role <viewer|operator|admin>
       orbit token list
       orbit token revoke <id>
Works on the database directly, without the API (for the first token): uses DATABASE_URL, or the
embedded PostgreSQL (shared with a running Orbit on this machine). Everything else, tokens included
once there is one: orbit tokens ... (the REST API).`;

@Module({})
class CliModule {
  static forRoot(config: OrbitConfig, databaseUrl: string): DynamicModule {
    return { module: CliModule, imports: [DatabaseModule.forRoot(config, databaseUrl), AuthModule] };
  }
}

/** `orbit token ...`: tokens, on the same database the server uses, without the API (see src/cli.ts). */
async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, role: { type: 'string' }, help: { type: 'boolean' } },
  });
  const [topic, verb, id] = positionals;
  if (values.help || topic !== 'token' || !['create', 'list', 'revoke'].includes(verb ?? '')) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const config = loadConfig({ ...process.env, ORBIT_ROLE: 'api' }, []);
  forgetSecretSettings();
  const database = await startDatabase(config, (line) => console.error(line));
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, database.url), {
    logger: ['error'],
  });
  try {
    await migrate(database.url);
    const tokens = app.get(TokensService);
    if (verb === 'create') {
      const { token, secret } = await tokens.issue(values.name, values.role);
      console.log(`Created token '${token.name}' (${token.role}), id ${token.id}. The secret, shown once:`);
      console.log(secret);
    } else if (verb === 'list') {
      const page = await tokens.list({ limit: 100 });
      for (const t of page.items) console.log(`${t.id}  ${t.role.padEnd(8)}  ${t.createdAt.toISOString()}  ${t.name}`);
    } else {
      if (!/^[0-9a-f-]{36}$/i.test(id ?? '')) throw new Error(`'${id ?? ''}' is not a token id (see: token list)`);
      await tokens.revoke(id!);
      console.log(`Revoked token ${id}`);
    }
    return 0;
  } finally {
    await app.close();
    await database.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error instanceof Error && !(error instanceof ConfigError) ? error.message : String(error));
    process.exitCode = 1;
  },
);
