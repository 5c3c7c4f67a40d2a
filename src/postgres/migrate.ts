import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/** Any fixed number: every Orbit process takes this advisory lock before migrating. */
const MIGRATION_LOCK = 7_405_112_001;

/**
 * Applies the pending migrations. Several processes may start at once: they queue on one
 * advisory lock, and each finds the work done by the first.
 */
export async function migrate(url: string): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(url, 2));
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}
