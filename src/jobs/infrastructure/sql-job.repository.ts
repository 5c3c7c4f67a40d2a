import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { ConflictError, StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database, uniqueViolation } from '../../shared/infrastructure/database.js';
import {
  AlertingJob,
  ChannelUsers,
  DueJobs,
  JobAlerts,
  JobFilter,
  JobRepository,
} from '../application/job.repository.js';
import { Job, JobProps } from '../domain/job.js';
import type { LateWatch } from '../domain/late-watch.js';
import { JOB_COLUMNS } from './job.columns.js';

/** Every column of a job row, under the names of JobProps: rows that Job.restore reads as they come. */
const SELECTED = JOB_COLUMNS.select();

/**
 * When the scheduler must wake next ($1: the lead of ALLOW jobs). Each side reads the first
 * entry of its index (jobs_due_idx, jobs_guarded_due_idx, jobs_resume_idx); LEAST ignores a side
 * that has no job.
 */
export const EARLIEST_NEXT_RUN = `SELECT LEAST(
     (SELECT next_run_at - $1 * interval '1 millisecond' FROM jobs
       WHERE enabled AND deleted_at IS NULL AND concurrency_policy = 'ALLOW'
       ORDER BY next_run_at LIMIT 1),
     (SELECT next_run_at FROM jobs
       WHERE enabled AND deleted_at IS NULL AND concurrency_policy <> 'ALLOW'
       ORDER BY next_run_at LIMIT 1),
     (SELECT resume_at FROM jobs WHERE resume_at IS NOT NULL AND deleted_at IS NULL
       ORDER BY resume_at LIMIT 1)) AS next`;

/** The watches due at $1, at most $2: job_late_watches_due_idx and jobs_late_watched_idx, whatever the number of jobs. */
export const DUE_LATE_WATCHES = `SELECT w.job_id AS "jobId", w.slot, j.late_after_seconds AS "lateAfterSeconds",
          j.cron_expression AS "cronExpression", j.timezone
     FROM job_late_watches w JOIN jobs j ON j.id = w.job_id
    WHERE w.due_at <= $1 AND j.enabled AND j.deleted_at IS NULL AND j.late_after_seconds IS NOT NULL
    ORDER BY w.due_at
    LIMIT $2
      FOR UPDATE OF w SKIP LOCKED`;

/** The live jobs with a trigger (the predicate of jobs_triggered_idx and jobs_triggered_after_idx). */
const TRIGGERED = `deleted_at IS NULL AND triggers <> '[]'::jsonb`;
/** Whether any live job has a trigger: one look at jobs_triggered_idx. */
export const ANY_TRIGGERED = `SELECT 1 FROM jobs WHERE ${TRIGGERED} LIMIT 1`;
/** Taken by every change of triggers, until its transaction ends (see lockTriggerGraph). */
const LOCK_TRIGGERS = `SELECT pg_advisory_xact_lock(hashtext('orbit.job_triggers'))`;

/** The live jobs triggered after one of the names $1: one containment probe per name in jobs_triggered_after_idx. */
export const TRIGGERED_AFTER = `SELECT ${SELECTED} FROM jobs
    WHERE ${TRIGGERED}
      AND triggers @> ANY (ARRAY(SELECT jsonb_build_array(jsonb_build_object('after', n)) FROM unnest($1::text[]) AS n))
    ORDER BY name`;

const restore = (row: JobProps) => Job.restore(row);

/**
 * Each channel of $1 with the live jobs whose rules name it (a job names a channel once), the
 * first $2 by name, and how many; of the teams $3 only, when given.
 */
const ALERTING_TO = `
  SELECT channel, id, name, "on", total::int AS total FROM (
    SELECT rule ->> 'channel' AS channel, j.id, j.name, rule -> 'on' AS "on",
           count(*) OVER (PARTITION BY rule ->> 'channel') AS total,
           row_number() OVER (PARTITION BY rule ->> 'channel' ORDER BY j.name) AS n
      FROM jobs j CROSS JOIN LATERAL jsonb_array_elements(j.alerts) AS rule
     WHERE j.deleted_at IS NULL AND rule ->> 'channel' = ANY ($1::text[])
       AND ($3::text[] IS NULL OR j.team = ANY ($3::text[]))
  ) AS naming
  WHERE n <= $2 ORDER BY channel, name`;

const INSERT = JOB_COLUMNS.insert();
const BY_ID = `SELECT ${SELECTED} FROM jobs WHERE id = $1 AND deleted_at IS NULL`;
/** What an update writes: everything but the key, the creation and the version, which moves on by one. */
const UPDATED = JOB_COLUMNS.fields.filter((field) => !['id', 'createdAt', 'version'].includes(field));
const UPDATE = `UPDATE jobs SET ${JOB_COLUMNS.assignments(UPDATED, 3)}, version = version + 1
  WHERE id = $1 AND version = $2 AND deleted_at IS NULL RETURNING id`;

@Injectable()
export class SqlJobRepository extends JobRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(job: Job): Promise<void> {
    await this.guardName(job, () => this.db.rows(INSERT, JOB_COLUMNS.params(job.toProps())));
  }

  async update(job: Job): Promise<void> {
    const props = job.toProps();
    const rows = await this.guardName(job, () =>
      this.db.rows(UPDATE, [props.id, props.version, ...JOB_COLUMNS.params(props, UPDATED)]),
    );
    if (rows.length !== 1) throw new StaleWriteError(`Job ${props.id} was changed by someone else; read it again`);
    job.persisted();
  }

  async markDeleted(job: Job, now: Date): Promise<void> {
    const rows = await this.db.rows(
      `UPDATE jobs SET deleted_at = $2, enabled = false, next_run_at = NULL, version = version + 1
        WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
      [job.id, now],
    );
    if (rows.length !== 1) throw new StaleWriteError(`Job ${job.id} was changed by someone else; read it again`);
  }

  async findById(id: string, lock?: 'share' | 'update'): Promise<Job | null> {
    const locking = lock && this.db.inTransaction() ? (lock === 'share' ? ' FOR SHARE' : ' FOR UPDATE') : '';
    const [row] = await this.db.rows<JobProps>(`${BY_ID}${locking}`, [id]);
    return row ? restore(row) : null;
  }

  /** Each filter given adds its condition: the statement of each combination is planned for it alone. */
  async list(filter: JobFilter, page: PageRequest): Promise<Page<Job>> {
    const conditions = ['deleted_at IS NULL'];
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filter.enabled !== undefined) conditions.push(`enabled = ${param(filter.enabled)}`);
    if (filter.nameContains) {
      const pattern = `%${filter.nameContains.replace(/[\\%_]/g, '\\$&')}%`;
      conditions.push(`name ILIKE ${param(pattern)} ESCAPE '\\'`);
    }
    if (filter.ids) conditions.push(`id = ANY (${param(filter.ids)}::uuid[])`);
    if (filter.exceptIds?.length) conditions.push(`id <> ALL (${param(filter.exceptIds)}::uuid[])`);
    if (filter.teams) conditions.push(`team = ANY (${param(filter.teams)}::text[])`);
    if (page.cursor) conditions.push(`(created_at, id) < (${param(page.cursor.createdAt)}, ${param(page.cursor.id)})`);
    const rows = await this.db.rows<JobProps>(
      `SELECT ${SELECTED} FROM jobs WHERE ${conditions.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT ${param(page.limit + 1)}`,
      params,
    );
    return toPage(rows.map(restore), page.limit);
  }

  async lockDue(now: Date, limit: number, leadMs: number): Promise<Job[]> {
    const rows = await this.db.rows<JobProps>(
      `SELECT ${SELECTED}
         FROM jobs
        WHERE enabled AND deleted_at IS NULL AND next_run_at <= $2
          AND (next_run_at <= $1 OR concurrency_policy = 'ALLOW')
        ORDER BY next_run_at
        LIMIT $3
          FOR UPDATE SKIP LOCKED`,
      [now, new Date(now.getTime() + leadMs), limit],
    );
    return rows.map(restore);
  }

  async saveSchedules(jobs: readonly Job[]): Promise<void> {
    if (jobs.length === 0) return;
    // updated_at stays as it is: jobs_changed_notify must not wake every node for a scheduler move
    await this.db.rows(
      `UPDATE jobs AS j SET next_run_at = v.next_run_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS v (id, next_run_at)
        WHERE j.id = v.id`,
      [jobs.map((job) => job.id), jobs.map((job) => job.nextRunAt)],
    );
  }

  /** jobs_resume_idx holds only the jobs paused with a resume instant: next to nothing for a pass to probe. */
  async lockResumable(now: Date, limit: number): Promise<Job[]> {
    const rows = await this.db.rows<JobProps>(
      `SELECT ${SELECTED} FROM jobs
        WHERE resume_at <= $1 AND deleted_at IS NULL AND NOT enabled
        ORDER BY resume_at LIMIT $2
          FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map(restore);
  }

  async earliestNextRun(leadMs: number): Promise<Date | null> {
    const [row] = await this.db.rows<{ next: Date | null }>(EARLIEST_NEXT_RUN, [leadMs]);
    return row?.next ?? null;
  }

  /** Both walk jobs_due_idx from its start, the count no further than its bound (other teams' jobs skipped on the way). */
  async dueBefore(until: Date, limit: number, countLimit: number, teams?: readonly string[]): Promise<DueJobs> {
    const ofTeams = teams ? ` AND team = ANY ($3::text[])` : '';
    const [counted] = await this.db.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM jobs WHERE enabled AND deleted_at IS NULL AND next_run_at < $1${ofTeams} LIMIT $2) AS due`,
      teams ? [until, countLimit, teams] : [until, countLimit],
    );
    const rows = await this.db.rows<JobProps>(
      `SELECT ${SELECTED} FROM jobs
        WHERE enabled AND deleted_at IS NULL AND next_run_at < $1${ofTeams}
        ORDER BY next_run_at LIMIT $2`,
      teams ? [until, limit, teams] : [until, limit],
    );
    const count = counted?.n ?? 0;
    return { count, atLeast: count >= countLimit, next: rows.map(restore) };
  }

  async namesAlertingTo(channel: string): Promise<string[]> {
    const rows = await this.db.rows<Pick<JobProps, 'name'>>(
      `SELECT name FROM jobs WHERE deleted_at IS NULL AND alerts @> jsonb_build_array(jsonb_build_object('channel', $1::text))
        ORDER BY name`,
      [channel],
    );
    return rows.map((row) => row.name);
  }

  async alertingTo(
    channels: readonly string[],
    limit: number,
    teams?: readonly string[],
  ): Promise<Map<string, ChannelUsers>> {
    const rows = await this.db.rows<AlertingJob & { channel: string; total: number }>(ALERTING_TO, [
      channels,
      limit,
      teams ?? null,
    ]);
    const users = new Map<string, ChannelUsers>();
    for (const { channel, total, ...job } of rows) {
      let ofChannel = users.get(channel);
      if (!ofChannel) users.set(channel, (ofChannel = { jobs: [], total }));
      ofChannel.jobs.push(job);
    }
    return users;
  }

  async alertsOf(ids: readonly string[]): Promise<Map<string, JobAlerts>> {
    const rows = await this.db.rows<Pick<JobProps, 'id' | 'name' | 'team' | 'alerts'>>(
      `SELECT id, name, team, alerts FROM jobs WHERE id = ANY ($1::uuid[]) AND deleted_at IS NULL`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, { name: row.name, team: row.team!, alerts: row.alerts }]));
  }

  async lockTriggerGraph(): Promise<Map<string, string[]>> {
    await this.db.rows(LOCK_TRIGGERS);
    const rows = await this.db.rows<Pick<JobProps, 'name' | 'triggers'>>(
      `SELECT name, triggers FROM jobs WHERE ${TRIGGERED}`,
    );
    return new Map(rows.map((row) => [row.name, row.triggers.map((trigger) => trigger.after)]));
  }

  async anyTriggered(): Promise<boolean> {
    if (this.db.inTransaction()) await this.db.rows(LOCK_TRIGGERS);
    return (await this.db.rows(ANY_TRIGGERED)).length > 0;
  }

  async triggeredAfter(names: readonly string[]): Promise<Job[]> {
    if (names.length === 0) return [];
    const rows = await this.db.rows<JobProps>(TRIGGERED_AFTER, [names]);
    return rows.map(restore);
  }

  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db.rows<Pick<JobProps, 'id' | 'name'>>(
      `SELECT id, name FROM jobs WHERE id = ANY ($1::uuid[]) AND deleted_at IS NULL`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async liveNames(names: readonly string[], teams?: readonly string[]): Promise<Set<string>> {
    const rows = await this.db.rows<Pick<JobProps, 'name'>>(
      `SELECT name FROM jobs WHERE deleted_at IS NULL AND name = ANY ($1::text[])
          AND ($2::text[] IS NULL OR team = ANY ($2::text[]))`,
      [names, teams ?? null],
    );
    return new Set(rows.map((row) => row.name));
  }

  async lockDueLateWatches(now: Date, limit: number): Promise<LateWatch[]> {
    return this.db.rows<LateWatch>(DUE_LATE_WATCHES, [now, limit]);
  }

  async moveLateWatches(moves: readonly { jobId: string; next: { slot: Date; dueAt: Date } | null }[]): Promise<void> {
    const moved = moves.filter((move) => move.next !== null);
    const dropped = moves.filter((move) => move.next === null).map((move) => move.jobId);
    if (moved.length > 0) {
      await this.db.rows(
        `UPDATE job_late_watches AS w SET slot = v.slot, due_at = v.due_at
           FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS v (job_id, slot, due_at)
          WHERE w.job_id = v.job_id`,
        [moved.map((move) => move.jobId), moved.map((move) => move.next!.slot), moved.map((move) => move.next!.dueAt)],
      );
    }
    if (dropped.length > 0)
      await this.db.rows(`DELETE FROM job_late_watches WHERE job_id = ANY ($1::uuid[])`, [dropped]);
  }

  private async guardName<T>(job: Job, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (uniqueViolation(error) === 'jobs_name_live_key') {
        throw new ConflictError(`A job named '${job.name}' already exists`, 'name');
      }
      throw error;
    }
  }
}
