import { Injectable } from '@nestjs/common';
import { newestRunsOfJob } from './runs-of-job.js';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionRetentionRepository } from '../application/execution-retention.repository.js';
import { EXECUTION_STATUSES, isFinal } from '../domain/execution-status.js';

/** The statuses an execution never leaves: the only ones retention may delete. A literal, never a parameter. */
const FINISHED = `(${EXECUTION_STATUSES.filter(isFinal)
  .map((status) => `'${status}'`)
  .join(', ')})`;

/**
 * Job j's (keepPerJob + 1)-th newest execution, from each index of its runs: none for a job with
 * no more than keepPerJob.
 */
const NEWEST_PRUNED = newestRunsOfJob('e.created_at, e.id', 'e.job_id = j.id', 1, { offset: '$2' });

/**
 * Job j's executions that finished before $1 and are not newer than newest_pruned, created before
 * the parameter `day` (see rowsCreatedBefore: a day of the history goes whole, dropped).
 */
const prunable = (day: string) => `e.job_id = j.id
  AND e.status IN ${FINISHED}
  AND e.finished_at < $1
  AND e.created_at < ${day}
  AND (e.created_at, e.id) <= (newest_pruned.created_at, newest_pruned.id)`;

/**
 * One batch, one statement (so one short transaction of its own unless the caller opened one).
 *
 * For every job, `newest_pruned` is its (keepPerJob + 1)-th newest execution, read from the
 * indexes by job of its queued, running and finished runs; a job with no more than keepPerJob
 * executions yields no row and so nothing to delete. The victims are that job's executions that
 * finished before `olderThan` and are not newer than `newest_pruned` in the (created_at, id)
 * order the API lists them in, found through the history's executions_job_newest_idx; the DELETE
 * then finds them by primary key. Every step is per job and by index: no scan of the whole table,
 * whatever its size.
 *
 * The status test appears twice: in the SELECT, so QUEUED and RUNNING rows are never even
 * locked, and in the DELETE, as a last guard (their finished_at is NULL besides). SKIP LOCKED:
 * a row a worker or another sweep holds is left for a later batch, never waited for; only the
 * rows the LIMIT lets through are locked. Deleting rows beyond the newest M of a job cannot push
 * any other row out of its newest M, so sweeps on several nodes at once delete nothing the rule
 * keeps. Deleting a row deletes its output, sets `retry_of` of its retries to NULL and releases its
 * slot or chain key (the ExecutionKeysByTriggers migration's trigger).
 */
const PRUNE_BATCH = `
  DELETE FROM executions
   WHERE id = ANY (ARRAY(
           SELECT victim.id
             FROM jobs j
            CROSS JOIN LATERAL (${NEWEST_PRUNED}) AS newest_pruned
            CROSS JOIN LATERAL (
                  SELECT e.id
                    FROM executions e
                   WHERE ${prunable('$4')}
                     FOR UPDATE SKIP LOCKED
            ) AS victim
            LIMIT $3))
     AND status IN ${FINISHED}
     AND created_at < $4
  RETURNING id`;

/**
 * What PRUNE_BATCH would delete, locked rows too, read per job as it reads it: each job's first
 * created prunable execution is the first entry of executions_job_newest_idx that passes, read
 * from the oldest end; the earliest finish among them is answered.
 */
export const OLDEST_OVERDUE = `
  SELECT min(overdue.finished_at) AS "finishedAt"
    FROM jobs j
   CROSS JOIN LATERAL (${NEWEST_PRUNED}) AS newest_pruned
   CROSS JOIN LATERAL (
         SELECT e.finished_at
           FROM executions e
          WHERE ${prunable('$3')}
          ORDER BY e.created_at, e.id
          LIMIT 1
   ) AS overdue`;

/**
 * The oldest finished run: the first entry of each day of the history in executions_newest_idx,
 * whatever the days' sizes.
 */
export const OLDEST_KEPT = `SELECT created_at AS "createdAt" FROM executions WHERE status IN ${FINISHED} ORDER BY created_at LIMIT 1`;

@Injectable()
export class SqlExecutionRetentionRepository extends ExecutionRetentionRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async pruneBatch(olderThan: Date, keepPerJob: number, batchSize: number, createdBefore: Date): Promise<number> {
    if (batchSize <= 0) return 0;
    const deleted = await this.db.rows<{ id: string }>(PRUNE_BATCH, [
      olderThan,
      Math.max(0, Math.floor(keepPerJob)),
      Math.floor(batchSize),
      createdBefore,
    ]);
    return deleted.length;
  }

  async oldestOverdue(olderThan: Date, keepPerJob: number, createdBefore: Date): Promise<Date | null> {
    const [row] = await this.db.rows<{ finishedAt: Date | null }>(OLDEST_OVERDUE, [
      olderThan,
      Math.max(0, Math.floor(keepPerJob)),
      createdBefore,
    ]);
    return row?.finishedAt ?? null;
  }

  async oldestKept(): Promise<Date | null> {
    const [row] = await this.db.rows<{ createdAt: Date | null }>(OLDEST_KEPT);
    return row?.createdAt ?? null;
  }
}
