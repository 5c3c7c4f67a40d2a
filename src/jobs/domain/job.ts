import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from './cron-schedule.js';
import { JobAlert, JobAlertInput, jobAlertsOf } from './job-alerts.js';
import { CONCURRENCY_POLICIES, ConcurrencyPolicy, MISFIRE_POLICIES, MisfirePolicy } from './job-policies.js';

export const JOB_LIMITS = {
  nameMaxLength: 200,
  commandMaxBytes: 8 * 1024,
  maxRetries: { min: 0, max: 100, default: 0 },
  timeoutSeconds: { min: 1, max: 604_800, default: 3600 },
  lateAfterSeconds: { min: 1, max: 604_800 },
  maxDurationSeconds: { min: 1, max: 604_800 },
} as const;

/** What a caller may set on a job; absent fields take their defaults on create. */
export interface JobSettings {
  name: string;
  command: string;
  cronExpression: string;
  timezone: string;
  maxRetries: number;
  timeoutSeconds: number;
  enabled: boolean;
  misfirePolicy: MisfirePolicy;
  concurrencyPolicy: ConcurrencyPolicy;
  /** Where and on what to alert (the channels are the alerts module's). */
  alerts: JobAlert[];
  /** A slot with no started run this long after its time is late (`slot.late`); null: never watched. */
  lateAfterSeconds: number | null;
  /** A run still running this long after it started is long-running (`execution.long_running`); null: no limit. */
  maxDurationSeconds: number | null;
}

/** JobSettings as a caller writes them. */
export type JobInput = Omit<JobSettings, 'alerts'> & { alerts: JobAlertInput[] };

export type NewJob = Pick<JobSettings, 'name' | 'command' | 'cronExpression'> & Partial<JobInput>;

export interface JobProps extends JobSettings {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  /** The next slot the scheduler will fire; null while the job is disabled. */
  nextRunAt: Date | null;
  version: number;
}

/** At most this many slots of one job fire in one scheduler pass; the rest follow in the next. */
export const MAX_SLOTS_PER_PASS = 100;

/** What a scheduler pass does for a job: the slots to fire, and the slots it lets go as misfires. */
export interface FirePlan {
  fire: Date[];
  missed: number;
}

/** The intention: what to run, and when. */
export class Job {
  private constructor(private props: JobProps) {}

  static create(input: NewJob, now: Date): Job {
    const settings = Job.validate({
      timezone: 'UTC',
      maxRetries: JOB_LIMITS.maxRetries.default,
      timeoutSeconds: JOB_LIMITS.timeoutSeconds.default,
      enabled: true,
      misfirePolicy: 'RUN_ONCE',
      concurrencyPolicy: 'ALLOW',
      alerts: [],
      lateAfterSeconds: null,
      maxDurationSeconds: null,
      ...withoutUndefined(input),
    } as JobInput);
    const job = new Job({ ...settings, id: randomUUID(), createdAt: now, updatedAt: now, nextRunAt: null, version: 1 });
    job.planFrom(now);
    return job;
  }

  static restore(props: JobProps): Job {
    return new Job({ ...props });
  }

  /** Applies a partial change with the same rules as create; the schedule restarts from `now` when it changed. */
  update(patch: Partial<JobInput>, now: Date): void {
    const settings = Job.validate({ ...this.settings(), ...withoutUndefined(patch) });
    const scheduleChanged =
      settings.cronExpression !== this.props.cronExpression ||
      settings.timezone !== this.props.timezone ||
      settings.enabled !== this.props.enabled;
    this.props = { ...this.props, ...settings, updatedAt: now };
    if (scheduleChanged) this.planFrom(now);
  }

  /** Moves the schedule on: the next slot is the first one strictly after `instant`. */
  planFrom(instant: Date): void {
    this.props.nextRunAt = this.props.enabled ? this.schedule().nextAfter(instant) : null;
  }

  /**
   * The slots due at `now`, and those up to `until` when they are fired ahead of their time. A
   * slot reached within `misfireThresholdMs` of its time fires, and so do the later ones (a
   * short stall catches up). When the oldest due slot is later than that, no scheduler ran at
   * its time: that is a misfire, and the missed slots collapse to one run of the most recent
   * slot (RUN_ONCE) or to none (SKIP).
   */
  dueSlots(now: Date, misfireThresholdMs: number, until: Date = now): FirePlan {
    const first = this.props.nextRunAt;
    const horizon = until > now ? until : now;
    if (!this.props.enabled || !first || first > horizon) return { fire: [], missed: 0 };
    const schedule = this.schedule();
    if (now.getTime() - first.getTime() <= misfireThresholdMs) {
      return { fire: [first, ...schedule.between(first, horizon, MAX_SLOTS_PER_PASS - 1)], missed: 0 };
    }
    const latest = schedule.latestAtOrBefore(now) ?? first;
    const missed = schedule.between(first, latest, MAX_SLOTS_PER_PASS).length + 1;
    if (this.props.misfirePolicy === 'SKIP') return { fire: [], missed };
    return { fire: [latest], missed: missed - 1 };
  }

  schedule(): CronSchedule {
    return CronSchedule.parse(this.props.cronExpression, this.props.timezone);
  }

  settings(): JobSettings {
    const { id: _id, createdAt: _c, updatedAt: _u, nextRunAt: _n, version: _v, ...settings } = this.props;
    return settings;
  }

  /** Called by the repository once a conditional write landed: the stored version moved on. */
  persisted(): void {
    this.props.version += 1;
  }

  toProps(): JobProps {
    return { ...this.props };
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get command(): string {
    return this.props.command;
  }
  get cronExpression(): string {
    return this.props.cronExpression;
  }
  get timezone(): string {
    return this.props.timezone;
  }
  get maxRetries(): number {
    return this.props.maxRetries;
  }
  get timeoutSeconds(): number {
    return this.props.timeoutSeconds;
  }
  get enabled(): boolean {
    return this.props.enabled;
  }
  get misfirePolicy(): MisfirePolicy {
    return this.props.misfirePolicy;
  }
  get concurrencyPolicy(): ConcurrencyPolicy {
    return this.props.concurrencyPolicy;
  }
  get alerts(): JobAlert[] {
    return this.props.alerts;
  }
  get lateAfterSeconds(): number | null {
    return this.props.lateAfterSeconds;
  }
  get maxDurationSeconds(): number | null {
    return this.props.maxDurationSeconds;
  }
  get nextRunAt(): Date | null {
    return this.props.nextRunAt;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get updatedAt(): Date {
    return this.props.updatedAt;
  }
  get version(): number {
    return this.props.version;
  }

  private static validate(input: JobInput): JobSettings {
    const name = requireText(input.name, 'name').trim();
    if (name.length === 0) throw new InvalidArgumentError('name must not be blank', 'name');
    if ([...name].length > JOB_LIMITS.nameMaxLength) {
      throw new InvalidArgumentError(`name must be at most ${JOB_LIMITS.nameMaxLength} characters`, 'name');
    }
    const command = requireText(input.command, 'command');
    if (command.trim().length === 0) throw new InvalidArgumentError('command must not be blank', 'command');
    if (Buffer.byteLength(command, 'utf8') > JOB_LIMITS.commandMaxBytes) {
      throw new InvalidArgumentError(`command must be at most ${JOB_LIMITS.commandMaxBytes} bytes`, 'command');
    }
    const timezone = canonicalTimezone(input.timezone);
    const schedule = CronSchedule.parse(input.cronExpression, timezone);
    if (typeof input.enabled !== 'boolean') {
      throw new InvalidArgumentError('enabled must be a boolean', 'enabled');
    }
    return {
      name,
      command,
      cronExpression: schedule.expression,
      timezone,
      maxRetries: requireIntegerIn(input.maxRetries, 'maxRetries', JOB_LIMITS.maxRetries),
      timeoutSeconds: requireIntegerIn(input.timeoutSeconds, 'timeoutSeconds', JOB_LIMITS.timeoutSeconds),
      enabled: input.enabled,
      misfirePolicy: requireOneOf(input.misfirePolicy, 'misfirePolicy', MISFIRE_POLICIES),
      concurrencyPolicy: requireOneOf(input.concurrencyPolicy, 'concurrencyPolicy', CONCURRENCY_POLICIES),
      alerts: jobAlertsOf(input.alerts),
      lateAfterSeconds: optionalIntegerIn(input.lateAfterSeconds, 'lateAfterSeconds', JOB_LIMITS.lateAfterSeconds),
      maxDurationSeconds: optionalIntegerIn(
        input.maxDurationSeconds,
        'maxDurationSeconds',
        JOB_LIMITS.maxDurationSeconds,
      ),
    };
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A string PostgreSQL can store: text columns cannot hold NUL characters. */
function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(`${field} must be a string`, field);
  if (value.includes('\u0000')) throw new InvalidArgumentError(`${field} must not contain NUL characters`, field);
  if (/[\uD800-\uDFFF]/u.test(value)) throw new InvalidArgumentError(`${field} must be valid Unicode text`, field);
  return value;
}

function requireIntegerIn(value: unknown, field: string, range: { min: number; max: number }): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw new InvalidArgumentError(`${field} must be an integer from ${range.min} to ${range.max}`, field);
  }
  return value;
}

/** An integer of `range`, or null for a limit left unset. */
function optionalIntegerIn(value: unknown, field: string, range: { min: number; max: number }): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw new InvalidArgumentError(`${field} must be null or an integer from ${range.min} to ${range.max}`, field);
  }
  return value;
}

function requireOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    throw new InvalidArgumentError(`${field} must be one of ${allowed.join(', ')}`, field);
  }
  return value as T;
}
