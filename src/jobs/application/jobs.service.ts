import { Injectable } from '@nestjs/common';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from '../domain/cron-schedule.js';
import { Job, JobInput, NewJob } from '../domain/job.js';
import type { JobAlert } from '../domain/job-alerts.js';
import { JobFilter, JobRepository } from './job.repository.js';
import { JobAlertChannels } from './job-alert-channels.js';
import { JobRemovalGuards } from './job-removal-guard.js';
import { ConcurrencyGroupsService } from './concurrency-groups.service.js';

@Injectable()
export class JobsService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly removalGuards: JobRemovalGuards,
    private readonly alertChannels: JobAlertChannels,
    private readonly groups: ConcurrencyGroupsService,
  ) {}

  create(input: NewJob): Promise<Job> {
    return this.transactions.run(async () => {
      const job = Job.create(input, this.clock.now());
      await this.alertChannels.check(job.alerts);
      await this.groups.check(job.concurrencyGroup);
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
      if (patch.concurrencyGroup !== undefined) await this.groups.check(job.concurrencyGroup);
      await this.jobs.update(job);
      return job;
    });
  }

  /** Stops the schedule with a note and, optionally, an instant at which it resumes by itself. */
  pause(id: string, note: string | null, resumeAt: Date | null): Promise<Job> {
    return this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      job.pause(note, resumeAt, this.clock.now());
      await this.jobs.update(job);
      return job;
    });
  }

  /** Starts the schedule again from now; a job that runs is left as it is (nothing written, no event). */
  resume(id: string): Promise<Job> {
    return this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      if (job.enabled) return job;
      job.resume(this.clock.now());
      await this.jobs.update(job);
      return job;
    });
  }

  /** The names of the live jobs whose alert rules name `channel`. */
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
