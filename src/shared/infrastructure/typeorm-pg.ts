import pg from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';

/**
 * The pg objects under TypeORM that Database.rows sends its statements to, reached here alone:
 * the pool (PostgresDriver's `master`, not part of TypeORM's documented API) and the client a
 * transaction's query runner holds (`QueryRunner.connect()`, public but typed `any`). The test
 * test/shared/typeorm-pg.int-spec.ts pins both, so a TypeORM upgrade that moves them fails there, by name.
 */
export function pgPool(dataSource: DataSource): pg.Pool {
  if (!dataSource.isInitialized) throw new Error('The database connection is closed');
  const pool = (dataSource.driver as unknown as { master?: unknown }).master;
  if (!(pool instanceof pg.Pool)) throw new Error(moved("PostgresDriver's `master` is no longer its pg Pool"));
  return pool;
}

/** The pg client of a query runner (the transaction's connection), connecting it if it is not yet. */
export async function pgClient(runner: QueryRunner): Promise<pg.ClientBase> {
  const client: unknown = await runner.connect();
  if (!(client instanceof pg.Client)) throw new Error(moved('QueryRunner.connect() no longer answers a pg Client'));
  return client;
}

const moved = (what: string) =>
  `TypeORM changed what Orbit reaches below it: ${what}. Update src/shared/infrastructure/typeorm-pg.ts.`;
