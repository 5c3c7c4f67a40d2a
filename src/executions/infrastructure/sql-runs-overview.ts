import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { EXECUTION_STATUSES, ExecutionStatus } from '../domain/execution-status.js';
import { RunsAtAGlance, RunsOverview } from '../application/runs-overview.js';
import { earliestDue, LIMITED } from './claim-lanes.js';

/** A count of the rows `where` selects, stopping at the bound ($3): an index range read no further. */
const bounded = (where: string) =>
  `(SELECT count(*)::int FROM (SELECT 1 FROM executions WHERE ${where} LIMIT $3) AS x)`;

/** The queued runs `and` keeps, counted to the bound: those with no limit, then the limited ones. */
const queued = (and: string) =>
  `least($3::bigint, ${bounded(`status = 'QUEUED' AND NOT ${LIMITED}${and}`)} + ${bounded(`status = 'QUEUED' AND ${LIMITED}${and}`)})::int`;

/**
 * One statement; each part reads index ranges: executions_status_newest_idx for the window
 * by status (executions_newest_idx, which carries the status, for the succeeded ones), for the
 * queued ones executions_claim_idx (those with no limit) and executions_due_idx (the limited),
 * executions_running_idx for the running.
 * `ofTeams` keeps each part to the runs of some teams' jobs: the same ranges, each row's job
 * looked up among theirs, or each of their jobs' runs by executions_job_newest_idx when they are
 * few; a count still stops at the bound.
 */
const atAGlance = (ofTeams = '') => `SELECT
  ${EXECUTION_STATUSES.map((status) => `${bounded(`status = '${status}' AND created_at >= $1${ofTeams}`)} AS "${status}"`).join(',\n  ')},
  ${queued(ofTeams)} AS queued,
  ${bounded(`status = 'RUNNING'${ofTeams}`)} AS running,
  ${queued(` AND due_at < $2${ofTeams}`)} AS late,
  ${earliestDue(ofTeams)} AS oldest_due`;

const AT_A_GLANCE = atAGlance();
/** As AT_A_GLANCE, of the runs of the jobs of the teams $4. */
const AT_A_GLANCE_OF_TEAMS = atAGlance(` AND job_id IN (SELECT id FROM jobs WHERE team = ANY ($4::text[]))`);

@Injectable()
export class SqlRunsOverview extends RunsOverview {
  constructor(private readonly db: Database) {
    super();
  }

  async atAGlance(
    windowStart: Date,
    lateBefore: Date,
    countLimit: number,
    teams?: readonly string[],
  ): Promise<RunsAtAGlance> {
    const [row] = await this.db.rows<Record<string, number | Date | null>>(
      teams ? AT_A_GLANCE_OF_TEAMS : AT_A_GLANCE,
      teams ? [windowStart, lateBefore, countLimit, teams] : [windowStart, lateBefore, countLimit],
    );
    const count = (name: string) => Number(row?.[name] ?? 0);
    const oldest = row?.oldest_due;
    return {
      createdSince: Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, count(status)])) as Record<
        ExecutionStatus,
        number
      >,
      queued: count('queued'),
      running: count('running'),
      late: count('late'),
      oldestQueuedDueAt: oldest ? new Date(oldest) : null,
    };
  }
}
