import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { RunningExecution, RunningExecutions, StartedExecution } from '../application/running-executions.js';

/** The running ones are few (each worker's concurrency at most): executions_running_idx holds only them. */
const onWorkers = (ofTeams = '') => `SELECT id, job_id AS "jobId", worker_id AS "workerId", started_at AS "startedAt"
  FROM executions
 WHERE status = 'RUNNING' AND worker_id = ANY($1::text[])${ofTeams}
 ORDER BY started_at, id`;

const ON_WORKERS = onWorkers();
/** As ON_WORKERS, of the jobs of the teams $2. */
const ON_WORKERS_OF_TEAMS = onWorkers(` AND job_id IN (SELECT id FROM jobs WHERE team = ANY ($2::text[]))`);

/**
 * What a worker held in [$2, $3): its finished runs that ended after the window's start and
 * started before its end, and what it runs now. A run that began before the window is in it while
 * it ran. The finished ones are read by executions_ended_idx (a block range index of ends and
 * starts: a day of the history holds its runs in about the order they ended), so a window reads the
 * pages of its own ends, past or present, and of the runs that started before it and ended after.
 */
const heldBetween = (
  ofTeams = '',
) => `SELECT id, job_id AS "jobId", status, started_at AS "startedAt", finished_at AS "finishedAt"
  FROM (SELECT id, job_id, status, started_at, finished_at FROM executions
         WHERE status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND finished_at > $2 AND started_at < $3 AND worker_id = $1
        UNION ALL
        SELECT id, job_id, status, started_at, finished_at FROM executions
         WHERE status = 'RUNNING' AND worker_id = $1 AND started_at < $3) AS held${ofTeams}
 ORDER BY started_at, id
 LIMIT $4`;

export const HELD_BETWEEN = heldBetween();
/** As HELD_BETWEEN, of the jobs of the teams $5: the limit counts only theirs. */
export const HELD_BETWEEN_OF_TEAMS = heldBetween(`
 WHERE job_id IN (SELECT id FROM jobs WHERE team = ANY ($5::text[]))`);

@Injectable()
export class SqlRunningExecutions extends RunningExecutions {
  constructor(private readonly db: Database) {
    super();
  }

  onWorkers(workerIds: readonly string[], teams?: readonly string[]): Promise<RunningExecution[]> {
    return teams
      ? this.db.rows<RunningExecution>(ON_WORKERS_OF_TEAMS, [workerIds, teams])
      : this.db.rows<RunningExecution>(ON_WORKERS, [workerIds]);
  }

  heldBetween(
    workerId: string,
    from: Date,
    to: Date,
    limit: number,
    teams?: readonly string[],
  ): Promise<StartedExecution[]> {
    return teams
      ? this.db.rows<StartedExecution>(HELD_BETWEEN_OF_TEAMS, [workerId, from, to, limit, teams])
      : this.db.rows<StartedExecution>(HELD_BETWEEN, [workerId, from, to, limit]);
  }
}
