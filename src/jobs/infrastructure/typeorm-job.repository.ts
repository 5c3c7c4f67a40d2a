import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { ConflictError, StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database, uniqueViolation } from '../../shared/infrastructure/database.js';
import { newestFirst } from '../../shared/infrastructure/newest-first.js';
import { DueJobs, JobFilter, JobRepository } from '../application/job.repository.js';
import { Job } from '../domain/job.js';
import type { JobAlert } from '../domain/job-alerts.js';
import { JobMapper } from './job.mapper.js';
import { JobOrmEntity } from './job.orm-entity.js';

/** Every column of a job row, under the property names of JobOrmEntity, for raw SQL read by JobMapper. */
const JOB_COLUMNS = `id, name, command, cron_expression AS "cronExpression", timezone, max_retries AS "maxRetries",
  timeout_seconds AS "timeoutSeconds", enabled, misfire_policy AS "misfirePolicy",
  concurrency_policy AS "concurrencyPolicy", alerts, next_run_at AS "nextRunAt", created_at AS "createdAt",
  updated_at AS "updatedAt", deleted_at AS "deletedAt", version`;

@Injectable()
export class TypeOrmJobRepository extends JobRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(job: Job): Promise<void> {
    await this.guardName(job, () => this.repo().insert(JobMapper.toRow(job)));
  }

  async update(job: Job): Promise<void> {
    const { id, version, createdAt: _createdAt, ...changes } = JobMapper.toRow(job);
    const result = await this.guardName(job, () =>
      this.repo()
        .createQueryBuilder()
        .update()
        .set({ ...changes, version: version + 1 })
        .where('id = :id AND version = :version AND deleted_at IS NULL', { id, version })
        .execute(),
    );
    if (result.affected !== 1) throw new StaleWriteError(`Job ${id} was changed by someone else; read it again`);
    job.persisted();
  }

  async markDeleted(job: Job, now: Date): Promise<void> {
    const result = await this.repo()
      .createQueryBuilder()
      .update()
      .set({ deletedAt: now, enabled: false, nextRunAt: null, version: () => 'version + 1' })
      .where('id = :id AND deleted_at IS NULL', { id: job.id })
      .execute();
    if (result.affected !== 1) throw new StaleWriteError(`Job ${job.id} was changed by someone else; read it again`);
  }

  async findById(id: string, lock?: 'share' | 'update'): Promise<Job | null> {
    const query = this.repo().createQueryBuilder('job').where('job.id = :id AND job.deleted_at IS NULL', { id });
    if (lock && this.db.inTransaction()) query.setLock(lock === 'share' ? 'pessimistic_read' : 'pessimistic_write');
    const row = await query.getOne();
    return row ? JobMapper.toDomain(row) : null;
  }

  async list(filter: JobFilter, page: PageRequest): Promise<Page<Job>> {
    const query = this.repo().createQueryBuilder('job').where('job.deleted_at IS NULL');
    if (filter.enabled !== undefined) query.andWhere('job.enabled = :enabled', { enabled: filter.enabled });
    if (filter.nameContains) {
      const pattern = `%${filter.nameContains.replace(/[\\%_]/g, '\\$&')}%`;
      query.andWhere(`job.name ILIKE :pattern ESCAPE '\\'`, { pattern });
    }
    if (filter.ids) query.andWhere('job.id = ANY (CAST(:ids AS uuid[]))', { ids: filter.ids });
    if (filter.exceptIds?.length)
      query.andWhere('job.id <> ALL (CAST(:exceptIds AS uuid[]))', { exceptIds: filter.exceptIds });
    const rows = await newestFirst(query, 'job', page);
    return toPage(rows.map(JobMapper.toDomain), page.limit);
  }

  /** Raw SQL: hydrating thousands of locked rows through the query builder costs more than the query. */
  async lockDue(now: Date, limit: number, leadMs: number): Promise<Job[]> {
    const rows = await this.db.rows<JobOrmEntity>(
      `SELECT ${JOB_COLUMNS}
         FROM jobs
        WHERE enabled AND deleted_at IS NULL AND next_run_at <= $2
          AND (next_run_at <= $1 OR concurrency_policy = 'ALLOW')
        ORDER BY next_run_at
        LIMIT $3
          FOR UPDATE SKIP LOCKED`,
      [now, new Date(now.getTime() + leadMs), limit],
    );
    return rows.map(JobMapper.toDomain);
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

  async earliestNextRun(leadMs: number): Promise<Date | null> {
    // each side walks jobs_due_idx from its start; LEAST ignores the side that has no job
    const [row] = await this.db.rows<{ next: Date | null }>(
      `SELECT LEAST(
         (SELECT next_run_at - $1 * interval '1 millisecond' FROM jobs
           WHERE enabled AND deleted_at IS NULL AND concurrency_policy = 'ALLOW'
           ORDER BY next_run_at LIMIT 1),
         (SELECT next_run_at FROM jobs
           WHERE enabled AND deleted_at IS NULL AND concurrency_policy <> 'ALLOW'
           ORDER BY next_run_at LIMIT 1)) AS next`,
      [leadMs],
    );
    return row?.next ?? null;
  }

  /** Both walk jobs_due_idx from its start, the count no further than its bound. */
  async dueBefore(until: Date, limit: number, countLimit: number): Promise<DueJobs> {
    const [counted] = await this.db.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT 1 FROM jobs WHERE enabled AND deleted_at IS NULL AND next_run_at < $1 LIMIT $2) AS due`,
      [until, countLimit],
    );
    const rows = await this.db.rows<JobOrmEntity>(
      `SELECT ${JOB_COLUMNS} FROM jobs
        WHERE enabled AND deleted_at IS NULL AND next_run_at < $1
        ORDER BY next_run_at LIMIT $2`,
      [until, limit],
    );
    const count = counted?.n ?? 0;
    return { count, atLeast: count >= countLimit, next: rows.map(JobMapper.toDomain) };
  }

  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db.rows<{ id: string; name: string }>(
      `SELECT id, name FROM jobs WHERE id = ANY ($1::uuid[]) AND deleted_at IS NULL`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async namesAlertingTo(channel: string): Promise<string[]> {
    const rows = await this.db.rows<{ name: string }>(
      `SELECT name FROM jobs WHERE deleted_at IS NULL AND alerts @> jsonb_build_array(jsonb_build_object('channel', $1::text))
        ORDER BY name`,
      [channel],
    );
    return rows.map((row) => row.name);
  }

  async alertsOf(ids: readonly string[]): Promise<Map<string, { name: string; alerts: JobAlert[] }>> {
    const rows = await this.db.rows<{ id: string; name: string; alerts: JobAlert[] }>(
      `SELECT id, name, alerts FROM jobs WHERE id = ANY ($1::uuid[]) AND deleted_at IS NULL`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, { name: row.name, alerts: row.alerts }]));
  }

  private repo() {
    return this.db.manager().getRepository(JobOrmEntity);
  }

  private async guardName<T>(job: Job, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (uniqueViolation(error) === 'jobs_name_live_key') {
        throw new ConflictError(`A job named '${job.name}' already exists`);
      }
      throw error;
    }
  }
}
