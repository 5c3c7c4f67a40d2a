import type { DataSource } from 'typeorm';

/** Takes the database back to the schema just before migration `name`, undoing it and every migration after it. */
export async function undoFrom(source: DataSource, name: string): Promise<void> {
  const landed = source.migrations.findIndex((m) => m.name === name);
  if (landed < 0) throw new Error(`no migration named ${name}`);
  for (let undo = source.migrations.length - landed; undo > 0; undo--) {
    await source.undoLastMigration({ transaction: 'all' });
  }
}
