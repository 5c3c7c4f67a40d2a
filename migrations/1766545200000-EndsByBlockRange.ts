import { MigrationInterface, QueryRunner } from 'typeorm';

/** The part of index `parent` on `table`, if that table has one. */
async function partOn(db: QueryRunner, parent: string, table: string): Promise<string | undefined> {
  const [part] = (await db.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_index x ON x.indexrelid = c.oid
      WHERE i.inhparent = $1::regclass AND x.indrelid = to_regclass($2)`,
    [parent, table],
  )) as { name: string }[];
  return part?.name;
}

/**
 * The history's finished runs by their end are read through a block range index,
 * `executions_ended_idx` (BRIN over `finished_at, started_at`), instead of the B-tree by worker and
 * end (`executions_worker_finished_idx`), so a run that ends enters one B-tree fewer.
 *
 * A run is inserted into its day of the history as it ends, so a day's pages hold its runs in about
 * the order they ended, and a window of ends (a worker's lane, the activity chart) reads the ranges
 * of pages that hold that window, however many runs the day holds before or after it. The B-tree
 * it replaces only bounded such a window from below: a past hour's lane read every run the worker
 * ended since.
 *
 * A BRIN entry is a range's summary, not a row's: a run appended to the end of a day falls in a
 * range not yet summarized and writes nothing to the index. `autosummarize` asks autovacuum to
 * summarize a range once the table grows past it, so the ranges a reader always reads (those not
 * summarized) stay a few. The build summarizes every range, the last one too (empty, on a day made
 * ahead), so each part's last range is left unsummarized after it, as Orbit leaves a day it makes.
 * Built on every day and on the history from before the days (about a tenth of a second per
 * million runs); nothing else is read or written.
 */
export class EndsByBlockRange1766545200000 implements MigrationInterface {
  name = 'EndsByBlockRange1766545200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE INDEX executions_ended_idx ON executions_history USING brin (finished_at, started_at) WITH (autosummarize = on)`,
    );
    await db.query(`DROP INDEX executions_worker_finished_idx`);
    await db.query(`
      SELECT brin_desummarize_range(p.relid, greatest(pg_relation_size(x.indrelid) / current_setting('block_size')::int - 1, 0))
        FROM pg_partition_tree('executions_ended_idx') p JOIN pg_index x ON x.indexrelid = p.relid
       WHERE p.isleaf`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX executions_worker_finished_idx ON executions (worker_id, finished_at)
      WHERE worker_id IS NOT NULL AND finished_at IS NOT NULL`);
    // its parts under the names the HistoryByDay migration gave them (which its `down` renames back)
    const history = await partOn(db, 'executions_worker_finished_idx', 'executions_history');
    await db.query(`ALTER INDEX ${history} RENAME TO executions_history_worker_finished_idx`);
    const legacy = await partOn(db, 'executions_history_worker_finished_idx', 'executions_h_legacy');
    if (legacy) await db.query(`ALTER INDEX ${legacy} RENAME TO executions_h_legacy_history_worker_finished_idx`);
    await db.query(`DROP INDEX executions_ended_idx`);
  }
}
