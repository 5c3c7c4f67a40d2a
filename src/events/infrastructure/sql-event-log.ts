import { setTimeout as sleep } from 'node:timers/promises';
import { Database } from '../../shared/infrastructure/database.js';
import { EventLog } from '../application/event-log.js';
import { AppendedEvent, OrbitEvent } from '../domain/orbit-event.js';
import { EVENT_COLUMNS, EventRow } from './event.columns.js';
import { EVENTS_CHANNEL } from './pg-event-listener.js';

const SELECTED = EVENT_COLUMNS.select();

/**
 * A finished run's start event lies at most this many seqs before its end event, unless the run
 * is one of the few in `executions_started_seq_idx` (the FewerIndexEntries migration holds the
 * same number in that index's predicate).
 */
export const START_TO_END_SEQS = 5_000;
/** The largest seq PostgreSQL's bigint can hold; JavaScript numbers are exact far beyond any real stream. */
export const NO_BOUND = '9223372036854775807';
const LONG_START = `end_seq - seq > ${START_TO_END_SEQS}`;
const SHORT_START = `end_seq - seq <= ${START_TO_END_SEQS}`;
/** `seq + START_TO_END_SEQS`, held within a bigint. */
const reach = (seq: string) => `least(${seq}, ${NO_BOUND} - ${START_TO_END_SEQS}) + ${START_TO_END_SEQS}`;

/**
 * The stream's parts, each read by an index of its own: the log's rows, the running runs' starts
 * (the queue partition's running runs), the finished runs' ends, and their starts, those long
 * before their end apart. `$1` and `$2` bound the seqs; `endsUpTo` bounds the ends whose starts
 * are read (`end_seq`, through the ends' index, which carries the start's seq and the job).
 */
const parts = (endsUpTo: string) => [
  `event_log WHERE seq > $1 AND seq <= $2`,
  `execution_running_start_events WHERE seq > $1 AND seq <= $2`,
  `execution_end_events WHERE seq > $1 AND seq <= $2`,
  `execution_finished_start_events WHERE seq > $1 AND seq <= $2 AND ${LONG_START}`,
  `execution_finished_start_events WHERE end_seq > $1 AND end_seq <= ${endsUpTo} AND seq > $1 AND seq <= $2 AND ${SHORT_START}`,
];

/**
 * Each part walks its own index up to the limit; one ORDER BY over a union of them would sort the
 * rows' parts. The ends are read first: when they fill the limit, every event answered lies at or
 * before the last of them, so the other finished runs' starts lie among the ends at most
 * START_TO_END_SEQS further; when they do not, among those up to that far past $2. Those starts
 * are chosen from the ends' index alone, and only the chosen rows are read.
 */
const after = (only: string) => {
  const [log, running, ends, longStarts, shortStarts] = parts(
    reach(`(SELECT CASE WHEN count(*) < $3 THEN $2::bigint ELSE max(seq) END FROM ends)`),
  );
  const read = (part: string) => `(SELECT ${SELECTED} FROM ${part}${only} ORDER BY seq LIMIT $3)`;
  const chosen = `execution_finished_start_events WHERE end_seq IN (SELECT end_seq FROM ${shortStarts}${only} ORDER BY seq LIMIT $3)`;
  return `
  WITH ends AS MATERIALIZED ${read(ends!)}
  SELECT * FROM (${[log!, running!, longStarts!].map(read).join(' UNION ALL ')}
    UNION ALL (SELECT ${SELECTED} FROM ${chosen}) UNION ALL SELECT * FROM ends) AS e
   ORDER BY seq LIMIT $3`;
};
export const AFTER = after('');
/** AFTER, of the jobs of the teams $4 only: each part checks its rows' jobs against that (short) list as it walks. */
export const TEAMS_AFTER = after(' AND job_id IN (SELECT id FROM jobs WHERE team = ANY ($4::text[]))');

/**
 * The first seq in ($1, $2] that the stream lacks (null: none): what a read of some teams' events
 * checks the seqs it passed against, since its rows alone do not show the others' gaps.
 */
export const FIRST_MISSING = `
  SELECT $1::bigint + min(n) AS missing FROM (
    SELECT seq, row_number() OVER (ORDER BY seq) AS n
      FROM (${parts(reach('$2::bigint'))
        .map((part) => `SELECT seq FROM ${part}`)
        .join(' UNION ALL ')}) AS s
  ) AS numbered
   WHERE seq <> $1::bigint + n`;

/** What a writer's own event sets; the others take their columns' defaults. */
const APPENDED = ['type', 'at', 'jobId', 'executionId', 'attempt', 'workerId', 'slot', 'detail'] as const;

/** One statement for any number of events, which wakes the listeners as the triggers' events do (at commit). */
const APPEND = `
  WITH appended AS (
    INSERT INTO event_log (${EVENT_COLUMNS.names(APPENDED)})
    SELECT * FROM unnest(${EVENT_COLUMNS.arrays(APPENDED)})
    RETURNING 1)
  SELECT pg_notify('${EVENTS_CHANNEL}', '') FROM (SELECT 1 FROM appended LIMIT 1) AS any_appended`;

/**
 * Other sessions' transactions that may still fill a gap: those that wrote to the event log or
 * to executions (an insert takes its lock before it takes a seq, as does a status change, whose
 * seq the guard hands out; each keeps its lock to the end of the transaction), named by their
 * virtual transaction ids. Plain readers (AccessShareLock) cannot fill one.
 */
const EVENT_WRITERS = `
  SELECT DISTINCT virtualtransaction FROM pg_locks
   WHERE locktype = 'relation' AND relation IN ('event_log'::regclass, 'executions'::regclass)
     AND mode <> 'AccessShareLock' AND granted
     AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND pid <> pg_backend_pid()`;
const WRITERS_NOW = `SELECT coalesce(array_agg(virtualtransaction), '{}') AS writers FROM (${EVENT_WRITERS}) AS w`;
const STILL_OPEN = `
  SELECT count(*)::int AS open FROM (${EVENT_WRITERS}) AS w WHERE virtualtransaction = ANY ($1::text[])`;
/** The newest seq (a finished run's start comes before its end), and the writers open after it was read (the snapshot is taken before pg_locks is read). */
export const LATEST = `
  SELECT greatest((SELECT max(seq) FROM event_log), (SELECT max(seq) FROM execution_running_start_events),
                  (SELECT max(seq) FROM execution_end_events), 0) AS seq,
         (SELECT coalesce(array_agg(virtualtransaction), '{}') FROM (${EVENT_WRITERS}) AS w) AS writers`;

/** How far below the newest seq latestSeq looks for a gap that a writer still open may fill. */
const UNSETTLED_REACH = 1_000;

export interface GapWait {
  /** How long a read waits for the open transactions that write events before it answers the events up to the gap only. */
  maxMs: number;
}

/**
 * A seq is taken when an event is inserted, but becomes visible when its transaction commits:
 * transactions that commit out of the order of their seqs leave a gap for a while, and a reader
 * that went past it would never see the event that fills it. So a read answers the events up
 * to the first gap at once; beyond it only once every transaction that was writing events when
 * the gap was seen has ended (then whatever fills the gaps has committed, and any gap left is for
 * good: a rollback, or events pruned). A transaction kept open longer than `maxMs` holds the
 * readers at its gap until it ends. Transactions that wrote no event are never waited for, and a
 * read with no gap waits for nothing.
 */
export class SqlEventLog extends EventLog {
  constructor(
    private readonly db: Database,
    private readonly gapWait: GapWait,
  ) {
    super();
  }

  async readAfter(after: number, limit: number, teams?: readonly string[]): Promise<OrbitEvent[]> {
    const rows = await this.read(after, NO_BOUND, limit, teams);
    const complete = teams ? await this.beforeFirstGap(after, rows) : contiguousPrefix(after, rows);
    if (complete.length === rows.length) return rows;
    if (!(await this.openTransactionsEnded())) return complete;
    // every event up to the last one read is final now
    return this.read(after, String(rows[rows.length - 1]!.seq), limit, teams);
  }

  /**
   * When a writer stays open past the wait, its event may still fill a gap below the newest seq:
   * the answer is then the seq before the first gap among the newest UNSETTLED_REACH, so a
   * stream that starts there gets that event when it commits (and the events after the gap that
   * had committed already), instead of starting past it.
   */
  async latestSeq(): Promise<number> {
    const { seq, settled } = await this.latest();
    if (settled) return seq;
    const [row] = await this.db.rows<{ missing: string | null }>(FIRST_MISSING, [
      Math.max(0, seq - UNSETTLED_REACH),
      seq,
    ]);
    return row?.missing === null || row?.missing === undefined ? seq : Number(row.missing) - 1;
  }

  async settledSeq(): Promise<number | null> {
    const { seq, settled } = await this.latest();
    return settled ? seq : null;
  }

  async append(events: AppendedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((e) => ({
      type: e.type,
      at: e.at,
      jobId: e.jobId,
      executionId: e.executionId ?? null,
      attempt: e.attempt ?? null,
      workerId: e.workerId ?? null,
      slot: e.slot ?? null,
      detail: e.detail ?? null,
    }));
    await this.db.rows(APPEND, EVENT_COLUMNS.values(rows, APPENDED));
  }

  private async read(after: number, upTo: string, limit: number, teams?: readonly string[]): Promise<OrbitEvent[]> {
    const rows = teams
      ? await this.db.rows<EventRow>(TEAMS_AFTER, [after, upTo, limit, teams])
      : await this.db.rows<EventRow>(AFTER, [after, upTo, limit]);
    return rows.map((row) => ({ ...row, seq: Number(row.seq), type: row.type }));
  }

  /** Some teams' events, read after `after`: those before the stream's first gap since `after`. */
  private async beforeFirstGap(after: number, events: OrbitEvent[]): Promise<OrbitEvent[]> {
    if (events.length === 0) return events;
    const [row] = await this.db.rows<{ missing: string | null }>(FIRST_MISSING, [
      after,
      events[events.length - 1]!.seq,
    ]);
    if (row?.missing === null || row?.missing === undefined) return events;
    const missing = Number(row.missing);
    return events.filter((event) => event.seq < missing);
  }

  /** The newest seq, and whether the writers open when it was read have ended since (within the gap wait). */
  private async latest(): Promise<{ seq: number; settled: boolean }> {
    const [row] = await this.db.rows<{ seq: string; writers: string[] }>(LATEST);
    return { seq: Number(row?.seq ?? 0), settled: await this.writersEnded(row?.writers ?? []) };
  }

  /** Waits, up to `maxMs`, for the transactions that write events now to end; answers whether they did. */
  private async openTransactionsEnded(): Promise<boolean> {
    const [row] = await this.db.rows<{ writers: string[] }>(WRITERS_NOW);
    return this.writersEnded(row?.writers ?? []);
  }

  private async writersEnded(writers: string[]): Promise<boolean> {
    const deadline = Date.now() + this.gapWait.maxMs;
    for (let pauseMs = 1; writers.length > 0; pauseMs = Math.min(pauseMs * 2, 20)) {
      const [open] = await this.db.rows<{ open: number }>(STILL_OPEN, [writers]);
      if (!open?.open) return true;
      if (Date.now() >= deadline) return false;
      await sleep(pauseMs);
    }
    return true;
  }
}

/** The events that follow `after` without a gap in their seqs. */
function contiguousPrefix(after: number, events: OrbitEvent[]): OrbitEvent[] {
  let expected = after + 1;
  let count = 0;
  while (count < events.length && events[count]!.seq === expected) {
    expected++;
    count++;
  }
  return events.slice(0, count);
}
