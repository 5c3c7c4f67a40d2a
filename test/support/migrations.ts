import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../../src/postgres/data-source-options.js';
import { createTestDatabase, TestDatabase } from './test-database.js';

/** A fresh database with every migration run, and a DataSource over it that runs or undoes them (close with closeMigratable). */
export async function migratableDatabase(): Promise<{ db: TestDatabase; source: DataSource }> {
  const db = await createTestDatabase();
  const source = new DataSource(dataSourceOptions(db.url, 1));
  await source.initialize();
  return { db, source };
}

export async function closeMigratable(db: TestDatabase | undefined, source: DataSource | undefined): Promise<void> {
  await source?.destroy();
  await db?.drop();
}

/** Takes the database back to the schema just before migration `name`, undoing it and every migration after it that ran. */
export async function undoFrom(source: DataSource, name: string): Promise<void> {
  const landed = source.migrations.findIndex((m) => m.name === name);
  if (landed < 0) throw new Error(`no migration named ${name}`);
  const [{ ran }] = await source.query<[{ ran: number }]>(
    `SELECT count(*)::int AS ran FROM migrations WHERE name = ANY($1)`,
    [source.migrations.slice(landed).map((m) => m.name)],
  );
  for (let undo = ran; undo > 0; undo--) {
    await source.undoLastMigration({ transaction: 'all' });
  }
}

/**
 * Runs the migrations that have not run on `db`, up to `name` and no further: what a test of that
 * migration checks is then its work alone, whatever the migrations after it change.
 */
export async function migrateThrough(db: TestDatabase, name: string): Promise<void> {
  const through = MIGRATIONS.findIndex((migration) => migration.name === name);
  if (through < 0) throw new Error(`no migration named ${name}`);
  const partial = new DataSource({ ...dataSourceOptions(db.url, 1), migrations: MIGRATIONS.slice(0, through + 1) });
  await partial.initialize();
  try {
    await partial.runMigrations({ transaction: 'all' });
  } finally {
    await partial.destroy();
  }
}
