import { Injectable } from '@nestjs/common';
import { runsOfJob } from './runs-of-job.js';
import { Database } from '../../shared/infrastructure/database.js';
import { DroppedDay, HistoryDays } from '../application/history-days.js';
import { HistoryDay } from '../domain/history-day.js';

/** Any constant key no other part of Orbit takes: "orbit hd" in ASCII. Held by the one node changing the days. */
const DAYS_LOCK = 0x6f72626974206864n;
/** A change of the days waits this long at most for a lock; the next pass tries again. */
const LOCK_TIMEOUT = `SET LOCAL lock_timeout = '5s'`;

/**
 * A table partitioned by the history's days: its partitions are `<prefix>_legacy` (what the table
 * held before the days), `<prefix>_kept` (what retention kept of the days it dropped, from the end
 * of the legacy part to the first day), one `<prefix>_<yyyymmdd>` per day, and `<prefix>_default`
 * (rows whose day is missing, moved into it once it is made).
 */
interface DayTable {
  parent: string;
  prefix: string;
  /** The partition key: the run's creation, or the event's instant (a run's queued event is at its creation). */
  key: string;
  /** The column that names a row's run. */
  run: string;
  /**
   * Deletes the rows of the runs `runs` selects (rows of the history), for a day the table has no
   * partition of (its rows of the day are in the part from before the days).
   */
  deleteOfRuns?: (runs: string) => string;
}
const HISTORY: DayTable = { parent: 'executions_history', prefix: 'executions_h', key: 'created_at', run: 'id' };
const EVENTS: DayTable = {
  parent: 'event_log',
  prefix: 'event_log',
  key: 'at',
  run: 'execution_id',
  // as the trigger of deleted runs does: a run's created event by its seq, the others by their run
  deleteOfRuns: (runs) =>
    `SELECT orbit_delete_run_events(array_agg(d.id), array_agg(d.created_seq), array_agg(d.created_at)) FROM (${runs}) AS d`,
};
const OUTPUTS: DayTable = {
  parent: 'execution_outputs',
  prefix: 'execution_outputs',
  key: 'created_at',
  run: 'execution_id',
  deleteOfRuns: (runs) => `DELETE FROM execution_outputs r USING (${runs}) AS d WHERE r.execution_id = d.id`,
};
const DAY_TABLES = [HISTORY, EVENTS, OUTPUTS];

/** `executions_h_20270105` for the history's day that starts on 2027-01-05 (UTC). */
export function dayTable(day: HistoryDay, table: DayTable = HISTORY): string {
  return `${table.prefix}_${day.start.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** A day's partition, not the part from before the days (`_legacy`) nor what retention kept of dropped days (`_kept`). */
const DAY_NAME = /_\d{8}$/;

/** A day's bounds as PostgreSQL reads them in DDL (made from Dates: nothing of a caller's text). */
function bounds(day: HistoryDay): string {
  return `FROM ('${day.start.toISOString()}') TO ('${day.end.toISOString()}')`;
}

/** The table's leaves with a range (its days, and what came before them), read from the catalog. */
const LEAVES = `
  SELECT c.relname AS name,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS start,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS "end"
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = $1::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'`;

/**
 * The last range of pages of each block range index of the table $1 left unsummarized: the index's
 * build summarized it (empty, for a day made ahead), and a summarized range takes a write for every
 * row appended to it that widens its summary. Autovacuum summarizes it once the table grows past it.
 */
const OPEN_LAST_RANGES = `
  SELECT brin_desummarize_range(x.indexrelid, greatest(pg_relation_size(x.indrelid) / current_setting('block_size')::int - 1, 0))
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am am ON am.oid = i.relam
   WHERE x.indrelid = $1::regclass AND am.amname = 'brin'`;

/** Event types that tell of a run's creation: in the day of its run. Any other event of a run (a notice) may not be. */
const CREATION_EVENTS = `('execution.queued', 'execution.running', 'execution.succeeded', 'execution.failed', 'execution.cancelled')`;

/**
 * The ids of the day's runs that retention keeps. For each job that has runs in the day (one probe
 * of the day's job index per job): its newest runs the job's newer runs leave room for, among the
 * newest `$2` (counted from the newer days and the waiting or running runs, at most `$2` entries
 * read). And the day's runs that finished at or after `$3`, by the day's block range index of ends
 * (a run enters its day as it ends, so those lie in the day's last pages).
 */
const KEPT_IDS = (day: string) => `
  SELECT kept.id
    FROM jobs j
   CROSS JOIN LATERAL (
         SELECT count(*)::int AS newer
           FROM (${runsOfJob('1', 'e.job_id = j.id AND e.created_at >= $1', 'LIMIT $2')} LIMIT $2) AS n
   ) AS c
   CROSS JOIN LATERAL (
         SELECT d.id FROM ${day} d WHERE d.job_id = j.id ORDER BY d.created_at DESC, d.id DESC LIMIT greatest($2 - c.newer, 0)
   ) AS kept
   WHERE EXISTS (SELECT 1 FROM ${day} x WHERE x.job_id = j.id)
  UNION
  SELECT d.id FROM ${day} d WHERE d.finished_at >= $3`;

@Injectable()
export class SqlHistoryDays extends HistoryDays {
  constructor(private readonly db: Database) {
    super();
  }

  async list(): Promise<HistoryDay[]> {
    return (await this.leaves(HISTORY))
      .filter((leaf): leaf is { name: string; start: Date; end: Date } => DAY_NAME.test(leaf.name))
      .map(({ start, end }) => ({ start, end }))
      .sort((a, b) => a.start.getTime() - b.start.getTime());
  }

  make(days: HistoryDay[]): Promise<HistoryDay[]> {
    return this.db.run(async () => {
      if (!(await this.lock())) return [];
      const made = new Map<number, HistoryDay>();
      for (const table of DAY_TABLES) {
        const leaves = await this.leaves(table);
        const covered = (day: HistoryDay) =>
          leaves.some((leaf) => (leaf.start === null || leaf.start <= day.start) && leaf.end >= day.end);
        for (const day of days.filter((wanted) => !covered(wanted))) {
          await this.makeDay(table, day);
          made.set(day.start.getTime(), day);
        }
      }
      return [...made.values()].sort((a, b) => a.start.getTime() - b.start.getTime());
    });
  }

  drop(day: HistoryDay, finishedBefore: Date, keepPerJob: number): Promise<DroppedDay | null> {
    const runs = dayTable(day);
    return this.db.run(async () => {
      if (!(await this.lock())) return null;
      const [oldest] = await this.list();
      if (oldest !== undefined && oldest.start < day.start) {
        throw new Error(`the history's days go oldest first: ${dayTable(oldest)} is older than ${runs}`);
      }
      const kept = (
        await this.db.rows<{ id: string }>(KEPT_IDS(runs), [
          day.end,
          Math.max(0, Math.floor(keepPerJob)),
          finishedBefore,
        ])
      ).map((row) => row.id);
      // the events and output of the day's runs that stay: those kept, and those still waiting or running
      const staying = [
        ...kept,
        ...(
          await this.db.rows<{ id: string }>(
            `SELECT id FROM executions_active WHERE created_at >= $1 AND created_at < $2`,
            [day.start, day.end],
          )
        ).map((row) => row.id),
      ];
      // PostgreSQL's estimate once it has one (a day is analyzed as it fills): a count would read the day
      const [stored] = await this.db.rows<{ count: number }>(
        `SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM ${runs}) END::int AS count
           FROM pg_class c WHERE c.oid = '${runs}'::regclass`,
      );
      // what pointed at a run that goes, as a DELETE's triggers would: the retries of its failures
      // (made in the day or after)
      await this.db.rows(
        `UPDATE executions e SET retry_of = NULL FROM ${runs} d
          WHERE e.retry_of = d.id AND e.created_at >= $1 AND d.status = 'FAILED' AND d.id <> ALL ($2::uuid[])`,
        [day.start, kept],
      );
      const dropped = [await this.keepApart(HISTORY, day, kept)];
      // the runs kept are back by now: a notice (read through events_notices_idx) stays with its run
      // if that run is still stored, whatever its day
      const notices = `r.execution_id IS NOT NULL AND r.type NOT IN ${CREATION_EVENTS}
        AND EXISTS (SELECT 1 FROM executions x WHERE x.id = r.execution_id)`;
      dropped.push(await this.keepApart(EVENTS, day, staying, notices));
      dropped.push(await this.keepApart(OUTPUTS, day, staying));
      for (const table of dropped) if (table !== null) await this.db.rows(`DROP TABLE ${table}`);
      return { dropped: (stored?.count ?? 0) - kept.length, kept: kept.length };
    });
  }

  private leaves(table: DayTable): Promise<{ name: string; start: Date | null; end: Date }[]> {
    return this.db.rows(LEAVES, [table.parent]);
  }

  /**
   * Made apart, filled with the day's rows stored apart meanwhile, then attached: the attach reads
   * the new day (small) and what is stored apart, and nothing else.
   */
  private async makeDay(table: DayTable, day: HistoryDay): Promise<void> {
    const leaf = dayTable(day, table);
    await this.db.rows(`CREATE TABLE ${leaf} (LIKE ${table.parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    await this.moveApartRows(table, leaf, day.start, day.end);
    await this.db.rows(`ALTER TABLE ${table.parent} ATTACH PARTITION ${leaf} FOR VALUES ${bounds(day)}`);
    await this.db.rows(OPEN_LAST_RANGES, [leaf]);
  }

  /** Moves the rows stored apart (in the DEFAULT partition) from `from` to `to` into `leaf`, not attached. */
  private async moveApartRows(table: DayTable, leaf: string, from: Date, to: Date): Promise<void> {
    const apart = `${table.prefix}_default`;
    const range = `${table.key} >= '${from.toISOString()}' AND ${table.key} < '${to.toISOString()}'`;
    await this.db.rows(`INSERT INTO ${leaf} SELECT * FROM ${apart} WHERE ${range}`);
    await this.db.rows(`DELETE FROM ${apart} WHERE ${range}`);
  }

  /**
   * The day of `table` goes, but its rows of the runs `ids` (and those `more` names): the day is detached, and
   * those rows are copied into the table's kept partition (`<prefix>_kept`, which holds what
   * retention kept of the days dropped), whose range then reaches the day's end. The kept rows
   * are copied as they are, into a table not attached meanwhile: no trigger sees them (they do not
   * end again). Answers the detached day, to be dropped; null when the table has no such day (the
   * day is in the part from before the days), whose rows of the day's runs that go are then
   * deleted.
   */
  private async keepApart(table: DayTable, day: HistoryDay, ids: string[], more?: string): Promise<string | null> {
    const keep = `r.${table.run} = ANY ($1::uuid[])`;
    const params = [ids];
    const leaf = dayTable(day, table);
    const leaves = await this.leaves(table);
    if (!leaves.some((stored) => stored.name === leaf)) {
      if (!table.deleteOfRuns) throw new Error(`${table.parent} has no day ${leaf}`);
      await this.db.rows(
        table.deleteOfRuns(`SELECT * FROM ${dayTable(day)} WHERE NOT (id = ANY ($1::uuid[]))`),
        params,
      );
      return null;
    }
    const kept = `${table.prefix}_kept`;
    const current = leaves.find((stored) => stored.name === kept);
    const from = current?.start ?? leaves.find((stored) => stored.name === `${table.prefix}_legacy`)?.end ?? day.start;
    await this.db.rows(`ALTER TABLE ${table.parent} DETACH PARTITION ${leaf}`);
    await this.db.rows(
      current
        ? `ALTER TABLE ${table.parent} DETACH PARTITION ${kept}`
        : `CREATE TABLE ${kept} (LIKE ${table.parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
    );
    await this.db.rows(
      `INSERT INTO ${kept} SELECT * FROM ${leaf} r WHERE ${keep}${more ? ` UNION ALL SELECT * FROM ${leaf} r WHERE ${more} AND NOT (${keep})` : ''}`,
      params,
    );
    // days never made before this one: their rows stored apart join the kept ones
    await this.moveApartRows(table, kept, from, day.end);
    await this.db.rows(
      `ALTER TABLE ${table.parent} ATTACH PARTITION ${kept} FOR VALUES ${bounds({ start: from, end: day.end })}`,
    );
    return leaf;
  }

  /** The lock of the days, for this transaction; false when another node holds it. */
  private async lock(): Promise<boolean> {
    await this.db.rows(LOCK_TIMEOUT);
    const [row] = await this.db.rows<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [
      DAYS_LOCK.toString(),
    ]);
    return row?.locked === true;
  }
}
