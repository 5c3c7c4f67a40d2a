import { EXECUTION_STATUSES, ExecutionStatus, isFinal } from '../domain/execution-status.js';

/**
 * Where a job's runs of each status lie, each read by an index by job of its own: the queued ones
 * by executions_queued_job_newest_idx, the running ones by executions_running_idx (both partial,
 * on their status), the finished ones by the history's executions_job_newest_idx. A read of a
 * job's runs that names no status would find no index over the queue partition, and read it whole.
 */
const PLACES: Record<'QUEUED' | 'RUNNING' | 'FINISHED', string> = {
  QUEUED: `executions e WHERE e.status = 'QUEUED' AND`,
  RUNNING: `executions e WHERE e.status = 'RUNNING' AND`,
  FINISHED: `executions_history e WHERE`,
};

/** The places of `statuses`' runs (all of them by default), each once. */
function placesOf(statuses: readonly ExecutionStatus[] = EXECUTION_STATUSES): string[] {
  const places = new Set(
    statuses.map((status) => (isFinal(status) ? PLACES.FINISHED : PLACES[status as 'QUEUED' | 'RUNNING'])),
  );
  return [...places];
}

/**
 * A job's runs where `where` holds (on `e`, naming the job), one part per place they lie in,
 * joined by UNION ALL: `SELECT ${select} FROM … WHERE … ${tail}` each. `tail` (an ORDER BY and a
 * LIMIT) applies to each part, so each walks its own index up to the limit; the caller orders and
 * limits the whole again. `statuses` keeps the places of those statuses' runs only.
 */
export function runsOfJob(select: string, where: string, tail = '', statuses?: readonly ExecutionStatus[]): string {
  return placesOf(statuses)
    .map((place) => `SELECT * FROM (SELECT ${select} FROM ${place} ${where} ${tail}) AS part`)
    .join(' UNION ALL ');
}

/** The ORDER BY of a job's runs, newest first, as its list and its indexes by job have them. */
export const NEWEST_FIRST = 'ORDER BY e.created_at DESC, e.id DESC';

/**
 * A job's newest runs where `where` holds, `limit` at most after the first `offset`: each part
 * walks its own index to its reach, and the page is taken of them all. `select` names
 * `e.created_at` and `e.id`, by which they are ordered.
 */
export function newestRunsOfJob(
  select: string,
  where: string,
  limit: string | number,
  { offset, statuses }: { offset?: string; statuses?: readonly ExecutionStatus[] } = {},
): string {
  const reach = offset ? `${limit} + ${offset}` : limit;
  const parts = runsOfJob(select, where, `${NEWEST_FIRST} LIMIT ${reach}`, statuses);
  return `SELECT * FROM (${parts}) AS e ${NEWEST_FIRST}${offset ? ` OFFSET ${offset}` : ''} LIMIT ${limit}`;
}
