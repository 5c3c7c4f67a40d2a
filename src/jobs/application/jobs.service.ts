import { Injectable } from '@nestjs/common';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from '../domain/cron-schedule.js';
import { Job, JobInput, NewJob } from '../domain/job.js';
import { cycleThrough } from '../domain/job-triggers.js';
import { ChannelUsers, DueJobs, JobAlerts, JobFilter, JobRepository } from './job.repository.js';
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

  /**
   * Makes the job in `team`. `visible`: the teams whose jobs the caller sees (undefined: every
   * team's), which the job's triggers may name.
   */
  create(input: NewJob, team = DEFAULT_TEAM, visible?: readonly string[]): Promise<Job> {
    return this.transactions.run(async () => {
      const job = Job.create(input, this.clock.now(), team);
      await this.alertChannels.check(job.alerts, team);
      await this.groups.check(job.concurrencyGroup, team);
      if (job.triggers.length > 0) await this.checkTriggers(job, null, visible);
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
    return job.nextRuns(count, this.clock.now());
  }

  /**
   * The next `count` fire times after now of a schedule that belongs to no job (a form's
   * preview), parsed by the rules a job's is: what this accepts, a job accepts.
   */
  previewSchedule(cron: string, timezone: string, count: number): Date[] {
    return CronSchedule.parse(cron, canonicalTimezone(timezone), 'cron').nextRuns(count, this.clock.now());
  }

  /**
   * Read under a row lock, so the change applies to what a scheduler pass left. `team`: the team
   * the job moves to (its alert channels and group must be that team's); `visible` as for create.
   */
  update(id: string, patch: Partial<JobInput>, team?: string, visible?: readonly string[]): Promise<Job> {
    return this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      const formerName = job.name;
      const moved = team !== undefined && team !== job.team;
      job.update(patch, this.clock.now());
      if (moved) job.moveTo(team, this.clock.now());
      const owner = job.team!;
      if (patch.alerts !== undefined || moved) await this.alertChannels.check(job.alerts, owner);
      if (patch.triggers !== undefined || job.name !== formerName) await this.checkTriggers(job, formerName, visible);
      if (patch.concurrencyGroup !== undefined || moved) await this.groups.check(job.concurrencyGroup, owner);
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

  /**
   * The enabled jobs whose next slot comes within `withinMs` from now (of `teams` only, when
   * given): counted up to `countLimit`, the first `limit`.
   */
  dueWithin(withinMs: number, limit: number, countLimit: number, teams?: readonly string[]): Promise<DueJobs> {
    return this.jobs.dueBefore(new Date(this.clock.now().getTime() + withinMs), limit, countLimit, teams);
  }

  /** The names of the live jobs whose alert rules name `channel`. */
  namesAlertingTo(channel: string): Promise<string[]> {
    return this.jobs.namesAlertingTo(channel);
  }

  /**
   * For each of `channels` that jobs alert to: the first `limit` of them by name, with their
   * events there, and how many; jobs of `teams` only, when given.
   */
  alertingTo(
    channels: readonly string[],
    limit: number,
    teams?: readonly string[],
  ): Promise<Map<string, ChannelUsers>> {
    return this.jobs.alertingTo(channels, limit, teams);
  }

  /** Name, team and alert rules of each live job among `ids`. */
  alertsOf(ids: readonly string[]): Promise<Map<string, JobAlerts>> {
    return this.jobs.alertsOf(ids);
  }

  /**
   * A job's triggers name live jobs and close no cycle; a job others follow keeps its name
   * (they name it). `formerName`: the job's name before an update, null on create.
   */
  private async checkTriggers(job: Job, formerName: string | null, visible?: readonly string[]): Promise<void> {
    const graph = await this.jobs.lockTriggerGraph();
    if (formerName !== null && formerName !== job.name) {
      const followers = this.followersOf(formerName, graph);
      if (followers.length > 0) {
        throw new ConflictError(
          `Job '${formerName}' cannot be renamed: ${followers.join(', ')} ${followers.length === 1 ? 'is' : 'are'} triggered by it; change their triggers first`,
        );
      }
    }
    const after = job.triggers.map((trigger) => trigger.after);
    const live = await this.jobs.liveNames(after, visible);
    const missing = after.findIndex((name) => !live.has(name));
    if (missing >= 0) {
      const field = `triggers[${missing}].after`;
      throw new InvalidArgumentError(`${field}: no job is named '${after[missing]}'`, field);
    }
    if (formerName !== null) graph.delete(formerName);
    const cycle = cycleThrough(job.name, after, graph);
    if (cycle) {
      throw new InvalidArgumentError(
        `triggers would make a cycle: ${cycle.join(' → ')} (each runs after the next)`,
        'triggers',
      );
    }
  }

  private followersOf(name: string, graph: ReadonlyMap<string, readonly string[]>): string[] {
    return [...graph]
      .filter(([, after]) => after.includes(name))
      .map(([follower]) => follower)
      .sort();
  }

  /** The name of each live job among `ids` (a deleted one has no followers: see remove). */
  namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    return this.jobs.namesOf(ids);
  }

  /** Whether any live job has a trigger; in a transaction, none appears before it ends (see JobRepository). */
  anyTriggered(): Promise<boolean> {
    return this.jobs.anyTriggered();
  }

  /** The live jobs that a trigger names one of `names` in. */
  triggeredAfter(names: readonly string[]): Promise<Job[]> {
    return this.jobs.triggeredAfter(names);
  }

  /**
   * Refused while an execution of the job runs; its queued executions are cancelled; its history
   * stays. `actor`: the name of the token that deletes it, which its cancelled runs keep.
   */
  async remove(id: string, actor: string): Promise<void> {
    await this.transactions.run(async () => {
      const job = await this.get(id, 'update');
      const followers = this.followersOf(job.name, await this.jobs.lockTriggerGraph());
      if (followers.length > 0) {
        throw new ConflictError(
          `Job '${job.name}' cannot be deleted: ${followers.join(', ')} ${followers.length === 1 ? 'is' : 'are'} triggered by it; change their triggers first`,
        );
      }
      await this.removalGuards.beforeRemoval(job.id, actor);
      await this.jobs.markDeleted(job, this.clock.now());
    });
  }
}
