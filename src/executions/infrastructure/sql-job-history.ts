import { Injectable } from '@nestjs/common';
import { newestRunsOfJob, runsOfJob } from './runs-of-job.js';
import { Database } from '../../shared/infrastructure/database.js';
import type { LastExecution, RecentRun } from '../../jobs/application/job-runs.js';
import { FailingJob, JobExecutionStats, JobHistory } from '../application/job-history.js';

/**
 * job_outcomes counts failed attempts in a row; a run that retried holds several of them. So
 * among the jobs with the most ($2), the newest failed attempts of the streak (at most $3, by
 * executions_failed_idx, which holds each job's failed runs by end) are read, and those that
 * earned no retry (executions_retry_of_idx) are the runs that failed: an attempt whose retry is
 * queued, runs or was cancelled ended no failed run. A job with at least $1 such runs is listed,
 * most first.
 */
const failingRuns = (
  ofTeams = '',
) => `SELECT o.job_id, streak.runs, o.failures_in_row > $3 AS at_least, o.last_finished_at
  FROM (SELECT job_id, failures_in_row, last_finished_at FROM job_outcomes
         WHERE failures_in_row >= $1 AND failures_in_row > 0${ofTeams}
         ORDER BY failures_in_row DESC, job_id LIMIT $2) AS o
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS runs
      FROM (SELECT e.id FROM executions e
             WHERE e.job_id = o.job_id AND e.finished_at IS NOT NULL AND e.finished_at <= o.last_finished_at
               AND e.status = 'FAILED'
             ORDER BY e.finished_at DESC
             LIMIT least(o.failures_in_row, $3)) AS attempt
     WHERE NOT EXISTS (SELECT 1 FROM executions r WHERE r.retry_of = attempt.id)
  ) AS streak
 WHERE streak.runs >= $1
 ORDER BY streak.runs DESC, o.last_finished_at DESC, o.job_id`;

const FAILING_RUNS = failingRuns();
/** As FAILING_RUNS, of the jobs of the teams $4 only. */
const FAILING_RUNS_OF_TEAMS = failingRuns(` AND job_id IN (SELECT id FROM jobs WHERE team = ANY ($4::text[]))`);

/**
 * job_outcomes_failing_idx holds the jobs with failed attempts since their last success; as in
 * FAILING_RUNS, an attempt that earned a retry ended no failed run. So a job fails when one of
 * those attempts has no retry: the newest failed attempts are read (executions_failed_idx)
 * until one is found, most often the first, and a job whose only failed attempts wait for, run
 * or cancelled their retry is not failing: its last run that succeeded or failed succeeded.
 */
const FAILING_JOBS = `SELECT o.job_id FROM job_outcomes o
  WHERE o.failures_in_row > 0
    AND EXISTS (
      SELECT 1
        FROM (SELECT e.id FROM executions e
               WHERE e.job_id = o.job_id AND e.finished_at IS NOT NULL AND e.finished_at <= o.last_finished_at
                 AND e.status = 'FAILED'
               ORDER BY e.finished_at DESC
               LIMIT o.failures_in_row) AS attempt
       WHERE NOT EXISTS (SELECT 1 FROM executions r WHERE r.retry_of = attempt.id))`;

@Injectable()
export class SqlJobHistory extends JobHistory {
  constructor(private readonly db: Database) {
    super();
  }

  /** One index probe per job and place of its runs, however many executions each has. */
  async lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>> {
    if (jobIds.length === 0) return new Map();
    const rows = await this.db.rows<{ job_id: string; id: string; status: string; finished_at: Date | null }>(
      `SELECT job.id AS job_id, last.id, last.status, last.finished_at
         FROM unnest($1::uuid[]) AS job (id)
         CROSS JOIN LATERAL (
           SELECT e.id, e.status, e.finished_at
             FROM (${newestRunsOfJob('e.id, e.status, e.finished_at, e.created_at', 'e.job_id = job.id', 1)}) AS e
         ) AS last`,
      [jobIds],
    );
    return new Map(
      rows.map((row) => [
        row.job_id,
        { id: row.id, status: row.status, finishedAt: row.finished_at ? new Date(row.finished_at) : null },
      ]),
    );
  }

  async executionStats(jobId: string, since: Date): Promise<JobExecutionStats> {
    const [row] = await this.db.rows<{ counts: Record<string, number>; p50: number | null; p95: number | null }>(
      `WITH windowed AS (
         ${runsOfJob('e.status, e.started_at, e.finished_at', 'e.job_id = $1 AND e.created_at >= $2')}
       ), durations AS (
         SELECT extract(epoch FROM finished_at - started_at)::float8 * 1000 AS ms
           FROM windowed
          WHERE started_at IS NOT NULL AND finished_at IS NOT NULL
       )
       SELECT (SELECT coalesce(jsonb_object_agg(status, n), '{}'::jsonb)
                 FROM (SELECT status, count(*)::int AS n FROM windowed GROUP BY status) AS by_status) AS counts,
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM durations) AS p50,
              (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) FROM durations) AS p95`,
      [jobId, since],
    );
    return { counts: row?.counts ?? {}, p50Ms: row?.p50 ?? null, p95Ms: row?.p95 ?? null };
  }

  /**
   * Each job's `count` newest runs that ended, by creation as its list of runs shows them: `count`
   * entries of executions_job_newest_idx per job (the history alone: a run that waits or runs has
   * not ended), however many executions each has.
   */
  async recentRuns(jobIds: readonly string[], count: number): Promise<Map<string, RecentRun[]>> {
    const runs = new Map<string, RecentRun[]>(jobIds.map((id) => [id, []]));
    if (jobIds.length === 0) return runs;
    const rows = await this.db.rows<{
      job_id: string;
      id: string;
      status: string;
      started_at: Date | null;
      finished_at: Date;
      ms: number | null;
    }>(
      `SELECT job.id AS job_id, run.id, run.status, run.started_at, run.finished_at,
              extract(epoch FROM run.finished_at - run.started_at)::float8 * 1000 AS ms
         FROM unnest($1::uuid[]) AS job (id)
         CROSS JOIN LATERAL (
           SELECT e.id, e.status, e.started_at, e.finished_at, e.created_at
             FROM executions e
            WHERE e.job_id = job.id AND e.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND e.finished_at IS NOT NULL
            ORDER BY e.created_at DESC, e.id DESC
            LIMIT $2
         ) AS run
        ORDER BY job.id, run.created_at DESC, run.id DESC`,
      [jobIds, count],
    );
    for (const row of rows) {
      runs.get(row.job_id)?.push({
        id: row.id,
        status: row.status,
        startedAt: row.started_at ? new Date(row.started_at) : null,
        finishedAt: new Date(row.finished_at),
        durationMs: row.ms,
      });
    }
    return runs;
  }

  async failingJobIds(): Promise<string[]> {
    const rows = await this.db.rows<{ job_id: string }>(FAILING_JOBS);
    return rows.map((row) => row.job_id);
  }

  async failingRepeatedly(
    minInRow: number,
    candidates: number,
    attemptsRead: number,
    teams?: readonly string[],
  ): Promise<FailingJob[]> {
    const rows = await this.db.rows<{ job_id: string; runs: number; at_least: boolean; last_finished_at: Date }>(
      teams ? FAILING_RUNS_OF_TEAMS : FAILING_RUNS,
      teams ? [minInRow, candidates, attemptsRead, teams] : [minInRow, candidates, attemptsRead],
    );
    return rows.map((row) => ({
      jobId: row.job_id,
      failuresInRow: row.runs,
      atLeast: row.at_least,
      lastFinishedAt: new Date(row.last_finished_at),
    }));
  }
}
