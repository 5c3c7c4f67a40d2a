import { Injectable } from '@nestjs/common';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { EXECUTION_STATUSES, ExecutionStatus } from '../../executions/domain/execution-status.js';
import { canonicalTimezone, CronSchedule } from '../domain/cron-schedule.js';
import { Job, JobSettings, NewJob } from '../domain/job.js';
import { JobFilter, JobRepository, LastExecution } from './job.repository.js';
import { JobRemovalGuard } from './job-removal-guard.js';

const HOUR_MS = 3_600_000;

/** How the executions of a job created in the last `windowHours` hours went. */
export interface JobStats {
  windowHours: number;
  since: Date;
  /** Every status, 0 when none. */
  counts: Record<ExecutionStatus, number>;
  /** Started → finished, in milliseconds, over the finished runs that started; null when there are none. */
  durationMs: { p50: number | null; p95: number | null };
}

@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly removalGuard: JobRemovalGuard,
  ) {}

  async create(input: NewJob): Promise<Job> {
    const job = Job.create(input, this.clock.now());
    await this.jobs.insert(job);
    return job;
  }

  async get(id: string, lock?: 'share' | 'update'): Promise<Job> {
    const job = await this.jobs.findById(id, lock);
    if (!job) throw new NotFoundError(`Job ${id} not found`);
    return job;
  }

  list(filter: JobFilter, page: PageRequest): Promise<Page<Job>> {
    return this.jobs.list(filter, page);
  }

  /** The next `count` fire times after now, in the job's time zone. */
  async nextRuns(id: string, count: number): Promise<Date[]> {
    const job = await this.get(id);
    return job.schedule().nextRuns(count, this.clock.now());
  }

  /**
   * The next `count` fire times after now of a schedule that belongs to no job (a form's
   * preview), parsed by the rules a job's is: what this accepts, a job accepts.
   */
  previewSchedule(cron: string, timezone: string, count: number): Date[] {
    return CronSchedule.parse(cron, canonicalTimezone(timezone), 'cron').nextRuns(count, this.clock.now());
  }

  /** The most recent execution of each job that has one: a read model shown beside jobs. */
  lastExecutions(jobIds: readonly string[]): Promise<Map<string, LastExecution>> {
    return this.jobs.lastExecutions(jobIds);
  }

  /** Executions of the job created in the last `hours` hours: how many ended how, and how long runs took. */
  async stats(id: string, hours: number): Promise<JobStats> {
    const job = await this.get(id);
    const since = new Date(this.clock.now().getTime() - hours * HOUR_MS);
    const stats = await this.jobs.executionStats(job.id, since);
    const counts = Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, stats.counts[status] ?? 0]));
    return {
      windowHours: hours,
      since,
      counts: counts as Record<ExecutionStatus, number>,
      durationMs: { p50: stats.p50Ms, p95: stats.p95Ms },
    };
  }

  /** Read under a row lock, so the change applies to what a scheduler pass left. */
  update(id: string, patch: Partial<JobSettings>): Promise<Job> {
    return this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      job.update(patch, this.clock.now());
      await this.jobs.update(job);
      return job;
    });
  }

  /** Refused while an execution of the job runs; its queued executions are cancelled; its history stays. */
  async remove(id: string): Promise<void> {
    await this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      await this.removalGuard.releaseExecutionsOf(job.id);
      await this.jobs.markDeleted(job, this.clock.now());
    });
  }
}
