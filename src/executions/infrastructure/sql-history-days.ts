import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { DroppedDay, HistoryDays } from '../application/history-days.js';
import { HistoryDay } from '../domain/history-day.js';

/** Any constant key no other part of Orbit takes: "orbit hd" in ASCII. Held by the one node changing the days. */
const DAYS_LOCK = 0x6f72626974206864n;
/** A change of the days waits this long at most for a lock; the next pass tries again. */
const LOCK_TIMEOUT = `SET LOCAL lock_timeout = '5s'`;
/** Where runs whose day is missing are stored, and the kept runs of dropped days. */
const APART = 'executions_h_default';

/** `executions_h_20270105` for the day that starts on 2027-01-05 (UTC). */
export function dayTable(day: HistoryDay): string {
  return `executions_h_${day.start.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** A day's bounds as PostgreSQL reads them in DDL (made from Dates: nothing of a caller's text). */
function bounds(day: HistoryDay): string {
  return `FROM ('${day.start.toISOString()}') TO ('${day.end.toISOString()}')`;
}

/** The history's leaves with a range (the days, and the history from before them), read from the catalog. */
const LEAVES = `
  SELECT c.relname AS name,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS start,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS "end"
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
   WHERE i.inhparent = 'executions_history'::regclass AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'`;

/**
 * The ids of the day's runs that retention keeps. For each job that has runs in the day (one probe
 * of the day's job index per job): its newest runs the job's newer runs leave room for, among the
 * newest `$2` (counted from the newer days and the waiting or running runs, at most `$2` entries
 * read), and its runs that finished at or after `$3`.
 */
const KEPT_IDS = (day: string) => `
  SELECT kept.id
    FROM jobs j
   CROSS JOIN LATERAL (
         SELECT count(*)::int AS newer
           FROM (SELECT 1 FROM executions k WHERE k.job_id = j.id AND k.created_at >= $1 LIMIT $2) AS n
   ) AS c
   CROSS JOIN LATERAL (
         (SELECT d.id FROM ${day} d WHERE d.job_id = j.id ORDER BY d.created_at DESC, d.id DESC LIMIT greatest($2 - c.newer, 0))
         UNION
         (SELECT d.id FROM ${day} d WHERE d.job_id = j.id AND d.finished_at >= $3)
   ) AS kept
   WHERE EXISTS (SELECT 1 FROM ${day} x WHERE x.job_id = j.id)`;

@Injectable()
export class SqlHistoryDays extends HistoryDays {
  constructor(private readonly db: Database) {
    super();
  }

  async list(): Promise<HistoryDay[]> {
    const leaves = await this.db.rows<{ name: string; start: Date | null; end: Date }>(LEAVES);
    return leaves
      .filter((leaf): leaf is { name: string; start: Date; end: Date } => leaf.start !== null)
      .map(({ start, end }) => ({ start, end }))
      .sort((a, b) => a.start.getTime() - b.start.getTime());
  }

  make(days: HistoryDay[]): Promise<HistoryDay[]> {
    return this.db.run(async () => {
      if (!(await this.lock())) return [];
      const leaves = await this.db.rows<{ start: Date | null; end: Date }>(LEAVES);
      const covered = (day: HistoryDay) =>
        leaves.some((leaf) => (leaf.start === null || leaf.start <= day.start) && leaf.end >= day.end);
      const made: HistoryDay[] = [];
      for (const day of days.filter((wanted) => !covered(wanted))) {
        const table = dayTable(day);
        const inDay = `created_at >= '${day.start.toISOString()}' AND created_at < '${day.end.toISOString()}'`;
        // made apart, filled with the day's runs stored apart meanwhile, then attached: the
        // attach reads the new day (small) and what is stored apart, and nothing else
        await this.db.rows(`CREATE TABLE ${table} (LIKE executions_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
        await this.db.rows(`INSERT INTO ${table} SELECT * FROM ${APART} WHERE ${inDay}`);
        await this.db.rows(`DELETE FROM ${APART} WHERE ${inDay}`);
        await this.db.rows(`ALTER TABLE executions_history ATTACH PARTITION ${table} FOR VALUES ${bounds(day)}`);
        made.push(day);
      }
      return made;
    });
  }

  drop(day: HistoryDay, finishedBefore: Date, keepPerJob: number): Promise<DroppedDay | null> {
    const table = dayTable(day);
    return this.db.run(async () => {
      if (!(await this.lock())) return null;
      const kept = (
        await this.db.rows<{ id: string }>(KEPT_IDS(table), [
          day.end,
          Math.max(0, Math.floor(keepPerJob)),
          finishedBefore,
        ])
      ).map((row) => row.id);
      await this.db.rows(
        `CREATE TEMP TABLE orbit_kept_runs ON COMMIT DROP AS SELECT * FROM ${table} WHERE id = ANY ($1::uuid[])`,
        [kept],
      );
      // what pointed at a run that goes, as a DELETE's triggers would: retries, events, output
      await this.db.rows(
        `UPDATE orbit_kept_runs SET retry_of = NULL
        WHERE retry_of IS NOT NULL AND retry_of <> ALL ($1::uuid[]) AND EXISTS (SELECT 1 FROM ${table} d WHERE d.id = retry_of)`,
        [kept],
      );
      await this.db.rows(
        `UPDATE executions e SET retry_of = NULL FROM ${table} d
          WHERE e.retry_of = d.id AND e.created_at >= $1 AND d.status = 'FAILED' AND d.id <> ALL ($2::uuid[])`,
        [day.start, kept],
      );
      await this.db.rows(
        `DELETE FROM event_log e USING ${table} d WHERE e.execution_id = d.id AND d.id <> ALL ($1::uuid[])`,
        [kept],
      );
      await this.db.rows(
        `DELETE FROM execution_outputs o USING ${table} d WHERE o.execution_id = d.id AND d.id <> ALL ($1::uuid[])`,
        [kept],
      );
      const [stored] = await this.db.rows<{ count: number }>(`SELECT count(*)::int AS count FROM ${table}`);
      await this.db.rows(`ALTER TABLE executions_history DETACH PARTITION ${table}`);
      // the kept runs go back where runs without a day go: they are neither ending nor cancelled now
      await this.db.rows(`SET LOCAL orbit.restoring = 'on'`);
      await this.db.rows(`INSERT INTO executions_history SELECT * FROM orbit_kept_runs`);
      await this.db.rows(`DROP TABLE ${table}`);
      return { dropped: (stored?.count ?? 0) - kept.length, kept: kept.length };
    });
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
