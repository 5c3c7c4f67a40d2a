import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
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

/** Takes the database back to the schema just before migration `name`, undoing it and every migration after it. */
export async function undoFrom(source: DataSource, name: string): Promise<void> {
  const landed = source.migrations.findIndex((m) => m.name === name);
  if (landed < 0) throw new Error(`no migration named ${name}`);
  for (let undo = source.migrations.length - landed; undo > 0; undo--) {
    await source.undoLastMigration({ transaction: 'all' });
  }
}
