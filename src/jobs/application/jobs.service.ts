import { Injectable } from '@nestjs/common';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from '../domain/cron-schedule.js';
import { Job, JobInput, NewJob } from '../domain/job.js';
import type { JobAlert } from '../domain/job-alerts.js';
import { DueJobs, JobFilter, JobRepository } from './job.repository.js';
import { JobAlertChannels } from './job-alert-channels.js';
import { JobRemovalGuards } from './job-removal-guard.js';

@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly removalGuards: JobRemovalGuards,
    private readonly alertChannels: JobAlertChannels,
  ) {}

  create(input: NewJob): Promise<Job> {
    return this.transactions.run(async () => {
      const job = Job.create(input, this.clock.now());
      await this.alertChannels.check(job.alerts);
      await this.jobs.insert(job);
      return job;
    });
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

  /** Read under a row lock, so the change applies to what a scheduler pass left. */
  update(id: string, patch: Partial<JobInput>): Promise<Job> {
    return this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      job.update(patch, this.clock.now());
      if (patch.alerts !== undefined) await this.alertChannels.check(job.alerts);
      await this.jobs.update(job);
      return job;
    });
  }

  /** The names of the live jobs whose alert rules name `channel`. */
  /** The enabled jobs whose next slot comes within `withinMs` from now: counted up to `countLimit`, the first `limit`. */
  dueWithin(withinMs: number, limit: number, countLimit: number): Promise<DueJobs> {
    return this.jobs.dueBefore(new Date(this.clock.now().getTime() + withinMs), limit, countLimit);
  }

  namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    return this.jobs.namesOf(ids);
  }

  namesAlertingTo(channel: string): Promise<string[]> {
    return this.jobs.namesAlertingTo(channel);
  }

  /** Name and alert rules of each live job among `ids`. */
  alertsOf(ids: readonly string[]): Promise<Map<string, { name: string; alerts: JobAlert[] }>> {
    return this.jobs.alertsOf(ids);
  }

  /** Refused while an execution of the job runs; its queued executions are cancelled; its history stays. */
  async remove(id: string): Promise<void> {
    await this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      await this.removalGuards.beforeRemoval(job.id);
      await this.jobs.markDeleted(job, this.clock.now());
    });
  }
}
