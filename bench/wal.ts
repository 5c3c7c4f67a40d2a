/**
 * What PostgreSQL wrote for a span of work, from its write-ahead log: the bytes (full-page images
 * included), and with pg_walinspect (a contrib module of the bench's embedded PostgreSQL) the
 * commits, row versions and index entries among them. Unlike CPU time, these are the same on any
 * machine for the same work, so they tell where a cost per execution comes from. Peers are
 * measured the same way.
 */
import type pg from 'pg';

/** Per execution. */
export interface WalPerExecution {
  bytes: number;
  /** The rest needs pg_walinspect; null without it. Of the bytes, the full-page images (a page's first change after a checkpoint). */
  fpiBytes: number | null;
  commits: number | null;
  /** Heap tuples written: inserts and the new versions of updates. */
  rowVersions: number | null;
  /** B-tree and GIN entries inserted. */
  indexEntries: number | null;
  /** Those of the indexes of the connection's database, by index (a partition's by its partitioned index), most first. */
  indexEntriesByIndex: { index: string; entries: number }[] | null;
  /** The row versions of the connection's database, by table (a partition's by its partitioned table), most first. */
  rowVersionsByTable: { table: string; versions: number }[] | null;
}

const ROW_VERSIONS = /^Heap\/(INSERT|UPDATE|HOT_UPDATE)(\+INIT)?$|^Heap2\/MULTI_INSERT(\+INIT)?$/;
const INDEX_ENTRIES = /^Btree\/INSERT_(LEAF|POST)$|^Gin\/INSERT$/;

/** The WAL position now (the insert position: what a span wrote is the difference). */
export async function walPosition(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return rows[0]!.lsn;
}

/** What was written from `from` until now, divided among `executions`. */
export async function walSince(db: pg.Client, from: string, executions: number): Promise<WalPerExecution> {
  // the records are read back from the log, which holds them once flushed
  const { rows } = await db.query<{ to: string; bytes: string }>(
    `SELECT pg_current_wal_flush_lsn()::text AS to, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text AS bytes`,
    [from],
  );
  const { to, bytes } = rows[0]!;
  const per = (n: number) => n / executions;
  const stats = await recordStats(db, from, to);
  if (!stats)
    return {
      bytes: per(Number(bytes)),
      fpiBytes: null,
      commits: null,
      rowVersions: null,
      indexEntries: null,
      indexEntriesByIndex: null,
      rowVersionsByTable: null,
    };
  const sum = (pick: (type: string) => boolean, field: 'count' | 'fpi_size') =>
    per(stats.filter((s) => pick(s.type)).reduce((total, s) => total + Number(s[field]), 0));
  return {
    bytes: per(Number(bytes)),
    fpiBytes: sum(() => true, 'fpi_size'),
    commits: sum((type) => type === 'Transaction/COMMIT', 'count'),
    rowVersions: sum((type) => ROW_VERSIONS.test(type), 'count'),
    indexEntries: sum((type) => INDEX_ENTRIES.test(type), 'count'),
    indexEntriesByIndex:
      (await byRelation(db, from, to, 'i', INDEX_ENTRIES))?.map(({ relation, count }) => ({
        index: relation,
        entries: per(Number(count)),
      })) ?? null,
    rowVersionsByTable:
      (await byRelation(db, from, to, 'r', ROW_VERSIONS))?.map(({ relation, count }) => ({
        table: relation,
        versions: per(Number(count)),
      })) ?? null,
  };
}

/**
 * The records of `types` of the span in the connection's database, counted by the index (`kind`
 * 'i') or table ('r') their first block belongs to, from pg_walinspect's block references
 * (PostgreSQL 16 and later); null before.
 */
async function byRelation(db: pg.Client, from: string, to: string, kind: 'i' | 'r', types: RegExp) {
  const read = db.query<{ relation: string; count: string }>(
    `SELECT coalesce(pg_partition_root(c.oid), c.oid)::regclass::text AS relation, count(*)::text AS count
       FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn) b
       JOIN pg_class c ON c.relfilenode = b.relfilenode AND c.relkind = $4
      WHERE b.block_id = 0 AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND (b.resource_manager || '/' || b.record_type) ~ $3
      GROUP BY 1 ORDER BY count(*) DESC, 1`,
    [from, to, types.source, kind],
  );
  return read.then(({ rows }) => rows).catch(() => null);
}

interface RecordStat {
  type: string;
  count: string;
  fpi_size: string;
}

/** pg_walinspect's counts by record type, or null where the module cannot be had. */
async function recordStats(db: pg.Client, from: string, to: string): Promise<RecordStat[] | null> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const { rows } = await db.query<RecordStat>(
      `SELECT "resource_manager/record_type" AS type, count::text, fpi_size::text
         FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0`,
      [from, to],
    );
    return rows;
  } catch {
    return null;
  }
}

/** `executions_pkey 2.0, executions_due_idx 1.0, …` (per execution; those under 0.05 left out). */
export function describeIndexEntries(wal: WalPerExecution): string {
  const shown = (wal.indexEntriesByIndex ?? []).filter(({ entries }) => entries >= 0.05);
  return shown.map(({ index, entries }) => `${index} ${entries.toFixed(1)}`).join(', ') || 'none read';
}

/** `executions 3.00, event_log 1.00, event_cursors 0.02, …` (per execution; those under 0.005 left out). */
export function describeRowVersions(wal: WalPerExecution): string {
  const shown = (wal.rowVersionsByTable ?? []).filter(({ versions }) => versions >= 0.005);
  return shown.map(({ table, versions }) => `${table} ${versions.toFixed(2)}`).join(', ') || 'none read';
}

/** `WAL 4.1 KB (FPI 0.2): 0.25 commits, 5.0 row versions, 21.9 index entries` (per execution). */
export function describeWal(wal: WalPerExecution): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  if (wal.fpiBytes === null) return `WAL ${kb(wal.bytes)} KB`;
  return (
    `WAL ${kb(wal.bytes)} KB (FPI ${kb(wal.fpiBytes)}): ${wal.commits!.toFixed(2)} commits, ` +
    `${wal.rowVersions!.toFixed(1)} row versions, ${wal.indexEntries!.toFixed(1)} index entries`
  );
}
