import { Injectable } from '@nestjs/common';
import { encodeCursor, Page, PageRequest } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionFilter, ExecutionReadModel } from '../application/execution-read-model.js';
import { EXECUTION_STATUSES, ExecutionStatus, isFinal } from '../domain/execution-status.js';
import { NEWEST_FIRST, newestRunsOfJob } from './runs-of-job.js';

/**
 * Each execution's API answer, made by PostgreSQL as it is read (orbit_execution_json; a change of
 * ExecutionResponse replaces it by a migration), so the API sends the text as it comes. Nothing
 * stores it: a run is written once and mostly never read on its own (see the RunJsonBuiltAtRead
 * migration).
 */
const EXECUTION_JSON = 'orbit_execution_json(e) AS json';

/** Teams with at most this many jobs have their runs read job by job (see fewJobs). */
export const JOB_BY_JOB = 50;

@Injectable()
export class SqlExecutionReadModel extends ExecutionReadModel {
  constructor(private readonly db: Database) {
    super();
  }

  async findJson(id: string): Promise<string | null> {
    const rows = await this.db.rows<{ json: string }>(`SELECT ${EXECUTION_JSON} FROM executions e WHERE e.id = $1`, [
      id,
    ]);
    return rows[0]?.json ?? null;
  }

  /** Each filter combination is its own statement, so each keeps its own index plan. */
  async listJson(filter: ExecutionFilter, page: PageRequest): Promise<Page<string>> {
    if (filter.teams?.length === 0) return { items: [], nextCursor: null };
    const jobByJob = filter.teams !== undefined && !filter.jobId && (await this.fewJobs(filter.teams));
    const { text, params } = listStatement(filter, page, jobByJob);
    const rows = await this.db.rows<{ json: string }>(text, params);
    const items = rows.slice(0, page.limit).map((row) => row.json);
    return { items, nextCursor: rows.length > page.limit ? cursorAfter(items[items.length - 1]!) : null };
  }

  /**
   * Whether the teams have few jobs (deleted ones with them): their runs are then read job by
   * job. The newest runs of all, walked in order, hold a big team's soon; a small team's may be
   * far back, or none, and the walk would read the whole history to find them.
   */
  private async fewJobs(teams: readonly string[]): Promise<boolean> {
    const [row] = await this.db.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM jobs WHERE team = ANY ($1::text[]) LIMIT ${JOB_BY_JOB + 1}) AS few`,
      [teams],
    );
    return (row?.n ?? 0) <= JOB_BY_JOB;
  }
}

/**
 * The statement of a page of executions (one more than the page, to tell whether another
 * follows), and its parameters. `jobByJob` reads the teams' runs job by job (see fewJobs).
 */
export function listStatement(
  filter: ExecutionFilter,
  page: PageRequest,
  jobByJob = false,
): { text: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const status = filter.status && `e.status = ${param(filter.status)}`;
  if (filter.retryOf) conditions.push(`e.retry_of = ${param(filter.retryOf)}`);
  if (filter.idPrefix) {
    const [lowest, highest] = uuidRange(filter.idPrefix);
    conditions.push(`e.id BETWEEN ${param(lowest)} AND ${param(highest)}`);
  }
  if (filter.createdFrom) conditions.push(`e.created_at >= ${param(filter.createdFrom)}`);
  if (filter.createdBefore) conditions.push(`e.created_at < ${param(filter.createdBefore)}`);
  if (page.cursor) {
    conditions.push(`(e.created_at, e.id) < (${param(page.cursor.createdAt)}, ${param(page.cursor.id)})`);
  }
  // the limit is written out, not a parameter: with it known, the plan PostgreSQL keeps for the
  // statement costs what a plan made for each call would, so it keeps one instead of planning
  // each call anew (which costs about 0.1 ms per day of the history)
  const limit = Math.floor(page.limit) + 1;
  /** A page of job `job`'s newest runs at most, each status's part read by its own index. */
  const newestOfJob = (job: string) =>
    newestRunsOfJob(
      `${EXECUTION_JSON}, e.created_at, e.id`,
      [`e.job_id = ${job}`, ...(status ? [status] : []), ...conditions].join(' AND '),
      limit,
      { statuses: filter.status && [filter.status] },
    );
  if (filter.jobId) {
    const job = param(filter.jobId);
    if (filter.teams)
      conditions.push(`e.job_id IN (SELECT id FROM jobs WHERE team = ANY (${param(filter.teams)}::text[]))`);
    return { text: `SELECT e.json FROM (${newestOfJob(job)}) AS e`, params };
  }
  if (filter.teams && jobByJob) {
    // a page of each job's newest runs at most, then the page of them all
    const teams = param(filter.teams);
    const text = `SELECT e.json FROM jobs j CROSS JOIN LATERAL (${newestOfJob('j.id')}) AS e
      WHERE j.team = ANY (${teams}::text[])
      ${NEWEST_FIRST} LIMIT ${limit}`;
    return { text, params };
  }
  // the walk the other filters pick, each row's job looked up among the teams'
  if (filter.teams) {
    conditions.push(`e.job_id IN (SELECT id FROM jobs WHERE team = ANY (${param(filter.teams)}::text[]))`);
  }
  if (status && filter.status !== ExecutionStatus.QUEUED) {
    const text = `SELECT ${EXECUTION_JSON} FROM executions e WHERE ${[status, ...conditions].join(' AND ')}
       ${NEWEST_FIRST} LIMIT ${limit}`;
    return { text, params };
  }
  // the queue partition has no index by creation: its queued runs are read job by job when few
  // jobs have any (newestQueued), and each other place by its own index
  const places = [
    ...(status ? [] : [`e.status IN (${FINAL}) AND`, `e.status = 'RUNNING' AND`]).map(
      (place) => `(SELECT e AS run, e.created_at, e.id FROM executions e WHERE ${place} ${all(conditions)}
         ${NEWEST_FIRST} LIMIT ${limit})`,
    ),
    newestQueued(status ? [status, ...conditions] : conditions, limit),
  ];
  const text = `SELECT orbit_execution_json(p.run) AS json
    FROM (SELECT * FROM (${places.join(' UNION ALL ')}) AS e ${NEWEST_FIRST} LIMIT ${limit}) AS p
   ORDER BY p.created_at DESC, p.id DESC`;
  return { text, params };
}

const FINAL = EXECUTION_STATUSES.filter(isFinal)
  .map((status) => `'${status}'`)
  .join(', ');
/** `conditions` joined by AND, or a condition that always holds. */
const all = (conditions: readonly string[]) => (conditions.length > 0 ? conditions.join(' AND ') : 'true');

/** With at most this many jobs having queued runs, a page of the newest queued runs is read job by job. */
export const QUEUED_JOB_BY_JOB = 100;

/**
 * The newest queued runs where `conditions` hold (on `e`), `limit` at most, each as its whole row
 * (`run`), with `created_at` and `id`. The queue partition keeps its queued runs by job only
 * (executions_queued_job_newest_idx), so its jobs with queued runs are found by skipping through
 * that index: when there are at most QUEUED_JOB_BY_JOB, each one's newest are read by that index,
 * and a backlog of a few jobs, however long, costs a few index probes. With more, the queued runs
 * are read whole and the newest kept (a queue of many jobs' runs, each job's few).
 */
function newestQueued(conditions: readonly string[], limit: number): string {
  const newest = (where: string) => `SELECT e AS run, e.created_at, e.id FROM executions e
     WHERE e.status = 'QUEUED' AND ${where} AND ${all(conditions)} ${NEWEST_FIRST} LIMIT ${limit}`;
  return `(
    WITH RECURSIVE queued_jobs AS (
      (SELECT job_id FROM executions WHERE status = 'QUEUED' ORDER BY job_id LIMIT 1)
      UNION ALL
      SELECT (SELECT q.job_id FROM executions q WHERE q.status = 'QUEUED' AND q.job_id > j.job_id ORDER BY q.job_id LIMIT 1)
        FROM queued_jobs j WHERE j.job_id IS NOT NULL
    ),
    few AS MATERIALIZED (SELECT job_id FROM queued_jobs WHERE job_id IS NOT NULL LIMIT ${QUEUED_JOB_BY_JOB + 1})
    SELECT queued.* FROM few CROSS JOIN LATERAL (${newest('e.job_id = few.job_id')}) AS queued
     WHERE (SELECT count(*) FROM few) <= ${QUEUED_JOB_BY_JOB}
    UNION ALL
    (${newest(`(SELECT count(*) FROM few) > ${QUEUED_JOB_BY_JOB}`)}))`;
}

/** The cursor after an item, read from its JSON: one parse per page instead of a timestamp per row. */
function cursorAfter(json: string): string {
  const { createdAt, id } = JSON.parse(json) as { createdAt: string; id: string };
  return encodeCursor({ createdAt: new Date(createdAt), id });
}

/** The lowest and highest ids that begin with `prefix` (hex digits): a range the primary key's index serves. */
function uuidRange(prefix: string): [string, string] {
  const uuid = (hex: string) =>
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const digits = prefix.toLowerCase();
  return [uuid(digits.padEnd(32, '0')), uuid(digits.padEnd(32, 'f'))];
}
