import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import type { ActivityBuckets, LevelChange, OutcomeCount } from '../domain/activity.js';
import { ExecutionStatus } from '../domain/execution-status.js';
import { RunsActivity } from '../application/runs-activity.js';

/** The start of the bucket an instant falls in: whole steps ($3, an interval) from the window's start ($1). */
const bucketOf = (at: string) => `date_bin($3::interval, ${at}, $1)`;

/**
 * By executions_newest_idx, which carries the status: a range of created_at, from the index alone
 * in the history (a run moved there at its end is all-visible once vacuumed).
 */
const outcomes = (ofTeams = '') => `SELECT ${bucketOf('created_at')} AS bucket, status, count(*)::int AS runs
  FROM executions WHERE status = ANY($4) AND created_at >= $1 AND created_at < $2${ofTeams}
  GROUP BY 1, 2`;

/** The runs of the jobs of the teams $5, in the same ranges: each row's job is looked up among theirs. */
const OF_TEAMS = ` AND job_id IN (SELECT id FROM jobs WHERE team = ANY ($5::text[]))`;

const FINAL = [ExecutionStatus.SUCCEEDED, ExecutionStatus.FAILED, ExecutionStatus.CANCELLED];

/**
 * The runs that waited or ran in the window: every run that waits or runs now (the small active
 * partition), and the finished ones that ended in it, by executions_ended_idx (a block range index
 * of ends: a day of the history holds its runs in about the order they ended, so the window's
 * pages are read, and the ranges not summarized yet). A run waits from when it is both created and
 * due until it starts, or ends unstarted (cancelled while queued); it runs from its start to its
 * end. A change before the window counts in its first bucket; one after `now`
 * ($2) has not happened yet.
 */
const levelChanges = (ofTeams = '') => `WITH lives AS (
    SELECT greatest(created_at, due_at) AS waits, coalesce(started_at, finished_at) AS waited, started_at, finished_at
      FROM executions WHERE status IN ('QUEUED', 'RUNNING')${ofTeams}
    UNION ALL
    SELECT greatest(created_at, due_at), coalesce(started_at, finished_at), started_at, finished_at
      FROM executions WHERE status = ANY($4) AND finished_at >= $1 AND finished_at <= $2${ofTeams}
  ), changes (at, queued, running) AS (
    SELECT waits, 1, 0 FROM lives WHERE waited IS NULL OR waited > waits
    UNION ALL SELECT waited, -1, 0 FROM lives WHERE waited > waits
    UNION ALL SELECT started_at, 0, 1 FROM lives WHERE started_at IS NOT NULL
    UNION ALL SELECT finished_at, 0, -1 FROM lives WHERE started_at IS NOT NULL AND finished_at IS NOT NULL
  )
  SELECT ${bucketOf('greatest(at, $1)')} AS bucket, sum(queued)::int AS queued, sum(running)::int AS running
    FROM changes WHERE at <= $2
   GROUP BY 1`;

const OUTCOMES = outcomes();
const OUTCOMES_OF_TEAMS = outcomes(OF_TEAMS);
const LEVEL_CHANGES = levelChanges();
const LEVEL_CHANGES_OF_TEAMS = levelChanges(OF_TEAMS);

const step = (buckets: ActivityBuckets) => `${buckets.stepMs} milliseconds`;

@Injectable()
export class SqlRunsActivity extends RunsActivity {
  constructor(private readonly db: Database) {
    super();
  }

  outcomes(buckets: ActivityBuckets, teams?: readonly string[]): Promise<OutcomeCount[]> {
    const params = [buckets.since, buckets.until, step(buckets), Object.values(ExecutionStatus)];
    return teams
      ? this.db.rows<OutcomeCount>(OUTCOMES_OF_TEAMS, [...params, teams])
      : this.db.rows<OutcomeCount>(OUTCOMES, params);
  }

  levelChanges(buckets: ActivityBuckets, now: Date, teams?: readonly string[]): Promise<LevelChange[]> {
    const params = [buckets.since, now, step(buckets), FINAL];
    return teams
      ? this.db.rows<LevelChange>(LEVEL_CHANGES_OF_TEAMS, [...params, teams])
      : this.db.rows<LevelChange>(LEVEL_CHANGES, params);
  }
}
