import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TokenRepository } from './auth/application/token.repository.js';
import { PeopleRepository } from './auth/application/people.repository.js';
import { TeamRepository } from './auth/application/team.repository.js';
import { DATABASE_OWNER, TokensService } from './auth/application/tokens.service.js';
import { SqlPeopleRepository } from './auth/infrastructure/sql-people.repository.js';
import { SqlTeamRepository } from './auth/infrastructure/sql-team.repository.js';
import { SqlTokenRepository } from './auth/infrastructure/sql-token.repository.js';
import { forgetSecretSettings, loadConfig, OrbitConfig } from './config/orbit-config.js';
import { DatabaseModule } from './postgres/database.module.js';
import { migrate } from './postgres/migrate.js';
import { startDatabase } from './postgres/start-database.js';

const USAGE = `Usage: orbit token create --name <name> --role <viewer|operator|admin>
       orbit token list
       orbit token revoke <id>

Tokens, on Orbit's database directly, without the API: how the first token is made. Works with
Orbit running or stopped: it uses DATABASE_URL, or the embedded PostgreSQL of ORBIT_DATA_DIR
(default ./.orbit), which it finds running or starts and stops itself. Once there is a token,
the API does the same from anywhere: orbit tokens list|create|revoke.`;

/** The tokens' service on the database, and nothing of the HTTP layer (guards, interceptors, audit). */
@Module({})
class TokenAdminModule {
  static forRoot(config: OrbitConfig, databaseUrl: string): DynamicModule {
    return {
      module: TokenAdminModule,
      imports: [DatabaseModule.forRoot(config, databaseUrl)],
      providers: [
        TokensService,
        { provide: TokenRepository, useClass: SqlTokenRepository },
        { provide: PeopleRepository, useClass: SqlPeopleRepository },
        { provide: TeamRepository, useClass: SqlTeamRepository },
      ],
    };
  }
}

class UsageError extends Error {}

/** `orbit token ...` (see src/cli.ts): 0 when done, 1 when refused or failed, 2 for a usage error. */
async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, role: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [, verb, id, ...extra] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (verb === 'create' && (values.name === undefined || values.role === undefined)) {
    throw new UsageError('orbit token create needs --name and --role');
  }
  if (verb === 'revoke' && !/^[0-9a-f-]{36}$/i.test(id ?? '')) {
    throw new UsageError(`'${id ?? ''}' is not a token id (see: orbit token list)`);
  }
  if (!['create', 'list', 'revoke'].includes(verb ?? '') || extra.length > 0 || (verb !== 'revoke' && id)) {
    throw new UsageError(verb ? `unknown: orbit token ${positionals.slice(1).join(' ')}` : 'a command is missing');
  }

  const config = loadConfig({ ...process.env, ORBIT_ROLE: 'api' }, []);
  forgetSecretSettings();
  const database = await startDatabase(config, (line) => console.error(line));
  try {
    await migrate(database.url);
    const app = await NestFactory.createApplicationContext(TokenAdminModule.forRoot(config, database.url), {
      logger: ['error'],
      abortOnError: false,
    });
    try {
      await run(app.get(TokensService), verb!, values, id);
    } finally {
      await app.close();
    }
  } finally {
    await database.stop();
  }
  return 0;
}

async function run(tokens: TokensService, verb: string, values: { name?: string; role?: string }, id?: string) {
  if (verb === 'create') {
    const { token, secret } = await tokens.issue(values.name, values.role);
    console.log(`Created token '${token.name}' (${token.role}), id ${token.id}. The secret, shown once:`);
    console.log(secret);
  } else if (verb === 'list') {
    const page = await tokens.list(DATABASE_OWNER, { limit: 100 });
    if (page.items.length === 0) console.error('No live tokens');
    for (const t of page.items) console.log(`${t.id}  ${t.role.padEnd(8)}  ${t.createdAt.toISOString()}  ${t.name}`);
  } else {
    await tokens.revoke(DATABASE_OWNER, id!);
    console.log(`Revoked token ${id}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(`orbit token: ${error instanceof Error ? error.message : String(error)}`);
    if (usage) console.error(`\n${USAGE}`);
    process.exitCode = usage ? 2 : 1;
  },
);
