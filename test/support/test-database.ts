import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/postgres/migrate.js';

/** Serialises template migration and cloning across jest workers. */
const TEMPLATE_LOCK = 4242;

export interface TestDatabase {
  url: string;
  /** Raw SQL in tests, on one pg connection to this database, one statement at a time. */
  sql(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: real schema, no rows, isolated per test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.ORBIT_TEST_ADMIN_URL;
  if (!adminUrl) throw new Error('ORBIT_TEST_ADMIN_URL is not set: run the tests through jest (globalSetup)');
  const name = `orbit_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    await migrate(adminUrl.replace(/\/postgres$/, '/orbit_template'));
    await admin.query(`CREATE DATABASE ${name} TEMPLATE orbit_template`);
  } finally {
    await admin.end();
  }
  const url = adminUrl.replace(/\/postgres$/, `/${name}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // one connection (BEGIN … ROLLBACK in tests spans calls), so concurrent calls take turns:
  // pg deprecates queueing a query on a client that is still executing one
  let turn: Promise<unknown> = Promise.resolve();
  return {
    url,
    sql: (text, params) => {
      const result = turn.then(() => client.query(text, params));
      turn = result.catch(() => undefined);
      return result;
    },
    drop: async () => {
      await client.end();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** A job for tests that work below the API: the columns every schema since the first migration has. */
export interface InsertedJob {
  id?: string;
  name: string;
  cronExpression?: string;
  enabled?: boolean;
  createdAt?: Date;
}

/** Inserts a job by SQL (no scheduler will fire it unless `enabled`, and its slot is yearly); answers its id. */
export async function insertJob(db: Pick<TestDatabase, 'sql'>, job: InsertedJob): Promise<string> {
  const { rows } = await db.sql(
    `INSERT INTO jobs (id, name, command, cron_expression, timezone, max_retries, timeout_seconds, enabled,
       misfire_policy, concurrency_policy, created_at, updated_at)
     VALUES ($1, $2, 'true', $3, 'UTC', 0, 60, $4, 'RUN_ONCE', 'ALLOW', $5, $5)
     RETURNING id`,
    [
      job.id ?? randomUUID(),
      job.name,
      job.cronExpression ?? '0 0 1 1 *',
      job.enabled ?? false,
      job.createdAt ?? new Date(),
    ],
  );
  return (rows[0] as { id: string }).id;
}
