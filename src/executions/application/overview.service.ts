import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import type { DueJobs } from '../../jobs/application/job.repository.js';
import { Clock } from '../../shared/domain/clock.js';
import { JobHistoryService, NamedFailingJob } from './job-history.service.js';
import { RunsAtAGlance, RunsOverview } from './runs-overview.js';
import { RunsActivity } from './runs-activity.js';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../domain/execution-status.js';
import {
  activityBuckets,
  type ActivityWindow,
  levelSamples,
  type LevelSample,
  outcomeBuckets,
  type OutcomeBucket,
} from '../domain/activity.js';

/** What the Overview shows, and the bounds that keep it cheap with millions of executions. */
export const OVERVIEW = {
  windowHours: 24,
  /** No count reads more rows than this; a count at it means "at least". */
  countLimit: 10_000,
  /** A queued run this long past its due instant is late. */
  lateAfterSeconds: 60,
  /** Failed runs in a row that make a job fail repeatedly. */
  failuresInRow: 3,
  /** A job's failed runs are counted among its last this many failed attempts (a run may take several). */
  failedAttemptsRead: 100,
  /** Jobs listed in each list. */
  listed: 10,
} as const;

const HOUR_MS = 3_600_000;

export interface Overview {
  at: Date;
  since: Date;
  until: Date;
  runs: RunsAtAGlance;
  due: DueJobs;
  failingRepeatedly: NamedFailingJob[];
}

export interface Activity {
  window: ActivityWindow;
  at: Date;
  since: Date;
  until: Date;
  stepSeconds: number;
  outcomes: OutcomeBucket[];
  levels: LevelSample[];
}

/** The whole system at a glance, in a handful of bounded index reads. */
@Injectable()
export class OverviewService {
  constructor(
    private readonly runs: RunsOverview,
    private readonly activityReads: RunsActivity,
    private readonly jobs: JobsService,
    private readonly history: JobHistoryService,
    private readonly clock: Clock,
  ) {}

  /** Of the jobs and runs of `teams` only, when given (undefined: every team's). */
  async overview(teams?: readonly string[]): Promise<Overview> {
    const at = this.clock.now();
    const windowMs = OVERVIEW.windowHours * HOUR_MS;
    const [runs, due, failingRepeatedly] =
      teams?.length === 0 // a team asked for that is not the caller's: nothing to read
        ? [noRuns(), { count: 0, atLeast: false, next: [] }, []]
        : await Promise.all([
            this.runs.atAGlance(
              new Date(at.getTime() - windowMs),
              new Date(at.getTime() - OVERVIEW.lateAfterSeconds * 1000),
              OVERVIEW.countLimit,
              teams,
            ),
            this.jobs.dueWithin(windowMs, OVERVIEW.listed, OVERVIEW.countLimit, teams),
            this.history.failingRepeatedly(OVERVIEW.failuresInRow, OVERVIEW.listed, OVERVIEW.failedAttemptsRead, teams),
          ]);
    return {
      at,
      since: new Date(at.getTime() - windowMs),
      until: new Date(at.getTime() + windowMs),
      runs,
      due,
      failingRepeatedly,
    };
  }

  /** The runs of the window by bucket, and how many waited and ran at the end of each (of `teams` only, when given). */
  async activity(window: ActivityWindow, teams?: readonly string[]): Promise<Activity> {
    const at = this.clock.now();
    const buckets = activityBuckets(window, at);
    const [outcomes, changes] =
      teams?.length === 0
        ? [[], []]
        : await Promise.all([
            this.activityReads.outcomes(buckets, teams),
            this.activityReads.levelChanges(buckets, at, teams),
          ]);
    return {
      window,
      at,
      since: buckets.since,
      until: buckets.until,
      stepSeconds: buckets.stepMs / 1000,
      outcomes: outcomeBuckets(buckets, outcomes),
      levels: levelSamples(buckets, changes, at),
    };
  }
}

/** No run at all. */
function noRuns(): RunsAtAGlance {
  return {
    createdSince: Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, 0])) as Record<
      ExecutionStatus,
      number
    >,
    queued: 0,
    running: 0,
    late: 0,
    oldestQueuedDueAt: null,
  };
}
