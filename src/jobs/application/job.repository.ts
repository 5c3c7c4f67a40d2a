import { Page, PageRequest } from '../../shared/application/page.js';
import { Job } from '../domain/job.js';
import type { AlertEvent, JobAlert } from '../domain/job-alerts.js';
import type { LateWatch } from '../domain/late-watch.js';

export interface JobFilter {
  enabled?: boolean;
  /** Part of the name, ignoring case. */
  nameContains?: string;
  /** Only these jobs (another module's answer, such as the failing ones). */
  ids?: readonly string[];
  /** None of these jobs. */
  exceptIds?: readonly string[];
  /** Only the jobs of these teams (undefined: every team's). */
  teams?: readonly string[];
}

/** A live job whose alert rules name a channel, with the events they alert on there. */
export interface AlertingJob {
  id: string;
  name: string;
  on: AlertEvent[];
}

/** The jobs whose rules name one channel: the first by name, and how many in all. */
export interface ChannelUsers {
  jobs: AlertingJob[];
  total: number;
}

/** A live job's name, team and alert rules: what the alerts consumer matches an event against. */
export interface JobAlerts {
  name: string;
  team: string;
  alerts: JobAlert[];
}

/** The enabled jobs whose next slot comes before an instant: how many (up to a bound), and the first. */
export interface DueJobs {
  count: number;
  /** The count reached the bound: there are at least that many. */
  atLeast: boolean;
  next: Job[];
}

/** Persistence port of jobs. Writes are conditional on the version the job was read with. */
export abstract class JobRepository {
  /** Throws ConflictError when the name is taken. */
  abstract insert(job: Job): Promise<void>;
  /** Throws StaleWriteError when the row changed since it was read, ConflictError when the name is taken. */
  abstract update(job: Job): Promise<void>;
  /** Removes the job from the live set; its executions keep pointing at it. */
  abstract markDeleted(job: Job, now: Date): Promise<void>;
  /** `lock` takes a row lock for the rest of the current transaction. */
  abstract findById(id: string, lock?: 'share' | 'update'): Promise<Job | null>;
  abstract list(filter: JobFilter, page: PageRequest): Promise<Page<Job>>;

  /**
   * Enabled live jobs whose next slot is due at `now` (ALLOW jobs: within `leadMs` after it),
   * locked for this transaction; rows others hold are skipped.
   */
  abstract lockDue(now: Date, limit: number, leadMs: number): Promise<Job[]>;
  /**
   * Stores the scheduler's moves of `nextRunAt`, in one statement: not a change of the jobs,
   * so no new version, no new `updatedAt` and no change notification.
   */
  abstract saveSchedules(jobs: readonly Job[]): Promise<void>;
  /** Paused live jobs whose `resumeAt` is at or before `now`, locked for this transaction; rows others hold are skipped. */
  abstract lockResumable(now: Date, limit: number): Promise<Job[]>;
  /**
   * When the scheduler must next pass: the earliest next slot of any enabled live job, `leadMs`
   * before it for ALLOW jobs, or the earliest `resumeAt` of a paused one.
   */
  abstract earliestNextRun(leadMs: number): Promise<Date | null>;
  /**
   * Enabled live jobs due before `until` (of `teams` only, when given): counted up to
   * `countLimit`, the first `limit` by next slot.
   */
  abstract dueBefore(until: Date, limit: number, countLimit: number, teams?: readonly string[]): Promise<DueJobs>;
  /** The names of the live jobs whose alert rules name `channel`. */
  abstract namesAlertingTo(channel: string): Promise<string[]>;
  /**
   * For each of `channels` that a live job's rules name: the first `limit` of those jobs by name,
   * and their number; jobs of `teams` only, when given.
   */
  abstract alertingTo(
    channels: readonly string[],
    limit: number,
    teams?: readonly string[],
  ): Promise<Map<string, ChannelUsers>>;
  /** Name, team and alert rules of each live job among `ids`. */
  abstract alertsOf(ids: readonly string[]): Promise<Map<string, JobAlerts>>;
  /**
   * Each live job's name with the names it is triggered after (jobs without triggers left out),
   * read under a transaction-wide lock that every change of triggers takes: two changes that
   * would close a cycle together cannot both see the graph without the other.
   */
  abstract lockTriggerGraph(): Promise<Map<string, string[]>>;
  /**
   * Whether any live job has a trigger. In a transaction, under the lock lockTriggerGraph takes,
   * so no trigger appears before the transaction ends.
   */
  abstract anyTriggered(): Promise<boolean>;
  /** The live jobs that a trigger names one of `names` in, by name. */
  abstract triggeredAfter(names: readonly string[]): Promise<Job[]>;
  /** The name of each live job among `ids`. */
  abstract namesOf(ids: readonly string[]): Promise<Map<string, string>>;
  /** Which of `names` are names of live jobs (of `teams` only, when given). */
  abstract liveNames(names: readonly string[], teams?: readonly string[]): Promise<Set<string>>;

  /**
   * Locks up to `limit` late watches due at `now` (their slot's deadline passed), of live enabled
   * jobs, skipping those another node holds. A watch is armed, moved and dropped with its job's
   * changes (see the LateAndLongRunning migration); the watcher moves it on with moveLateWatches.
   */
  abstract lockDueLateWatches(now: Date, limit: number): Promise<LateWatch[]>;
  /** Moves locked watches on to their next slot, or drops them (`next` null: the schedule has no more). */
  abstract moveLateWatches(
    moves: readonly { jobId: string; next: { slot: Date; dueAt: Date } | null }[],
  ): Promise<void>;
}
