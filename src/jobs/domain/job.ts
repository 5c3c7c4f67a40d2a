import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from './cron-schedule.js';
import { JobAlert, JobAlertInput, jobAlertsOf } from './job-alerts.js';
import { CONCURRENCY_POLICIES, ConcurrencyPolicy, MISFIRE_POLICIES, MisfirePolicy } from './job-policies.js';
import { DEFAULT_PLACEMENT, JobPlacement, placementOf } from './job-placement.js';
import { JobParameter, JobParameterInput, jobParametersOf } from './job-parameters.js';
import { JobTrigger, JobTriggerInput, jobTriggersOf } from './job-triggers.js';
import { instantOf, JITTER_SECONDS, jitterMs } from './job-window.js';

export const JOB_LIMITS = {
  nameMaxLength: 200,
  descriptionMaxLength: 2000,
  commandMaxBytes: 8 * 1024,
  maxRetries: { min: 0, max: 100, default: 0 },
  timeoutSeconds: { min: 1, max: 604_800, default: 3600 },
  pausedNoteMaxLength: 1000,
  jitterSeconds: JITTER_SECONDS,
  lateAfterSeconds: { min: 1, max: 604_800 },
  maxDurationSeconds: { min: 1, max: 604_800 },
} as const;

/** What a caller may set on a job; absent fields take their defaults on create. */
export interface JobSettings extends JobPlacement {
  name: string;
  /** What the job is for, in its owners' words ('' for none). */
  description: string;
  command: string;
  /** null: no schedule (the job runs by hand or by trigger only). */
  cronExpression: string | null;
  timezone: string;
  maxRetries: number;
  timeoutSeconds: number;
  enabled: boolean;
  misfirePolicy: MisfirePolicy;
  concurrencyPolicy: ConcurrencyPolicy;
  /** Where and on what to alert (the channels are the alerts module's). */
  alerts: JobAlert[];
  /** The other jobs' outcomes that start a run of this one. */
  triggers: JobTrigger[];
  /** The inputs a run takes, as ORBIT_PARAM_<NAME>. */
  parameters: JobParameter[];
  /** No slot fires before this instant (null: since ever). */
  startsAt: Date | null;
  /** No slot fires after this instant (null: for ever). */
  endsAt: Date | null;
  /** Each slot's run is due up to this many seconds after the slot, to spread a herd. */
  jitterSeconds: number;
  /** A slot with no started run this long after its time is late (`slot.late`); null: never watched. */
  lateAfterSeconds: number | null;
  /** A run still running this long after it started is long-running (`execution.long_running`); null: no limit. */
  maxDurationSeconds: number | null;
}

/** JobSettings as a caller writes them. */
export type JobInput = Omit<JobSettings, 'alerts' | 'triggers' | 'parameters' | 'startsAt' | 'endsAt'> & {
  alerts: JobAlertInput[];
  triggers: JobTriggerInput[];
  parameters: JobParameterInput[];
  startsAt: Date | string | null;
  endsAt: Date | string | null;
};

export type NewJob = Pick<JobSettings, 'name' | 'command' | 'cronExpression'> & Partial<JobInput>;

export interface JobProps extends JobSettings {
  id: string;
  /** The team that owns the job, its runs and its history (null: a deleted job whose team is gone). */
  team: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The next slot the scheduler will fire; null while the job is disabled. */
  nextRunAt: Date | null;
  version: number;
  /** Why the job is paused, as its pauser wrote it; null while it runs (or paused without a note). */
  pausedNote: string | null;
  /** When a paused job resumes by itself (the scheduler resumes it); null while it runs. */
  resumeAt: Date | null;
}

/** At most this many slots of one job fire in one scheduler pass; the rest follow in the next. */
export const MAX_SLOTS_PER_PASS = 100;

/**
 * A misfire counts its slots up to this many (about 0.2 ms a slot in a time zone with DST, so
 * an outage's recovery stays cheap); a longer episode says so (`countCapped`).
 */
export const MISSED_SLOTS_COUNTED = MAX_SLOTS_PER_PASS;

/** The slots of one misfire episode that did not fire: [first, last], `count` of them. */
export interface Misfire {
  first: Date;
  last: Date;
  /** At least this many when `countCapped`. */
  count: number;
  /** true when there were more than MISSED_SLOTS_COUNTED slots. */
  countCapped: boolean;
}

/** What a scheduler pass does for a job: the slots to fire, and the slots it lets go as a misfire. */
export interface FirePlan {
  fire: Date[];
  missed: Misfire | null;
}

/** The intention: what to run, and when. */
export class Job {
  private constructor(private props: JobProps) {}

  static create(input: NewJob, now: Date, team = DEFAULT_TEAM): Job {
    const settings = Job.validate({
      description: '',
      timezone: 'UTC',
      maxRetries: JOB_LIMITS.maxRetries.default,
      timeoutSeconds: JOB_LIMITS.timeoutSeconds.default,
      enabled: true,
      misfirePolicy: 'RUN_ONCE',
      concurrencyPolicy: 'ALLOW',
      alerts: [],
      ...DEFAULT_PLACEMENT,
      triggers: [],
      parameters: [],
      startsAt: null,
      endsAt: null,
      jitterSeconds: JOB_LIMITS.jitterSeconds.default,
      lateAfterSeconds: null,
      maxDurationSeconds: null,
      ...withoutUndefined(input),
    } as JobInput);
    const job = new Job({
      ...settings,
      id: randomUUID(),
      team,
      createdAt: now,
      updatedAt: now,
      nextRunAt: null,
      version: 1,
      pausedNote: null,
      resumeAt: null,
    });
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
      settings.enabled !== this.props.enabled ||
      settings.startsAt?.getTime() !== this.props.startsAt?.getTime() ||
      settings.endsAt?.getTime() !== this.props.endsAt?.getTime();
    this.props = { ...this.props, ...settings, updatedAt: now };
    if (settings.enabled) this.props = { ...this.props, pausedNote: null, resumeAt: null };
    if (scheduleChanged) this.planFrom(now);
  }

  /**
   * Stops the schedule, with a note saying why and, optionally, the instant at which it resumes
   * by itself (after now, at most a year ahead). Pausing a paused job replaces its note and instant.
   */
  pause(note: string | null, resumeAt: Date | null, now: Date): void {
    if (note !== null) {
      requireText(note, 'note');
      if ([...note].length > JOB_LIMITS.pausedNoteMaxLength) {
        throw new InvalidArgumentError(`note must be at most ${JOB_LIMITS.pausedNoteMaxLength} characters`, 'note');
      }
    }
    if (resumeAt !== null) {
      const yearAhead = new Date(now);
      yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
      if (resumeAt <= now) throw new InvalidArgumentError('resumeAt must be in the future', 'resumeAt');
      if (resumeAt > yearAhead) throw new InvalidArgumentError('resumeAt must be at most a year ahead', 'resumeAt');
    }
    const pausedNote = note === null || note.trim() === '' ? null : note.trim();
    this.props = { ...this.props, enabled: false, pausedNote, resumeAt, updatedAt: now };
    this.planFrom(now);
  }

  /** Starts the schedule again from `now` (no burst of the slots passed while paused). */
  resume(now: Date): void {
    this.props = { ...this.props, enabled: true, pausedNote: null, resumeAt: null, updatedAt: now };
    this.planFrom(now);
  }

  /**
   * The resume a paused job planned, as of its instant: a slot at that instant fires, and one
   * that the scheduler reaches late is judged by the misfire policy, as if resumed then.
   */
  resumeAsPlanned(): void {
    const at = this.props.resumeAt;
    if (this.props.enabled || at === null) return;
    this.resume(at > this.props.updatedAt ? at : this.props.updatedAt);
    const schedule = this.schedule();
    this.props.nextRunAt = schedule ? (this.slotsAfter(schedule, new Date(at.getTime() - 1), 1)[0] ?? null) : null;
  }

  /** Moves the schedule on: the next slot is the first one strictly after `instant`, inside the window. */
  planFrom(instant: Date): void {
    const schedule = this.props.enabled ? this.schedule() : null;
    this.props.nextRunAt = schedule ? (this.slotsAfter(schedule, instant, 1)[0] ?? null) : null;
  }

  /** The next `count` slots strictly after `instant`, inside the window: what the scheduler will fire. */
  nextRuns(count: number, instant: Date): Date[] {
    const schedule = this.schedule();
    return schedule ? this.slotsAfter(schedule, instant, count) : [];
  }

  /** The slots in [from, to), inside the window, at most `limit` of them (a backfill's). */
  slotsIn(from: Date, to: Date, limit: number): Date[] {
    const schedule = this.schedule();
    if (!schedule) return [];
    const after = new Date(Math.max(from.getTime(), this.props.startsAt?.getTime() ?? -Infinity) - 1);
    const until = new Date(Math.min(to.getTime() - 1, this.props.endsAt?.getTime() ?? Infinity));
    return until < after ? [] : schedule.between(after, until, limit);
  }

  /** When the run of `slot` is due: the slot, or later by the job's jitter. */
  dueAtFor(slot: Date): Date {
    return new Date(slot.getTime() + jitterMs(this.props.id, slot, this.props.jitterSeconds));
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
    const schedule = this.schedule();
    if (!this.props.enabled || !schedule || !first || first > horizon) return { fire: [], missed: null };
    const end = this.props.endsAt;
    if (now.getTime() - first.getTime() <= misfireThresholdMs) {
      const last = end && end < horizon ? end : horizon;
      return { fire: [first, ...schedule.between(first, last, MAX_SLOTS_PER_PASS - 1)], missed: null };
    }
    const latest = schedule.latestAtOrBefore(end && end < now ? end : now) ?? first;
    if (this.props.misfirePolicy === 'SKIP') return { fire: [], missed: misfire(schedule, first, latest) };
    // slots are whole seconds: the one before `latest` is the latest at or before a second earlier
    const last = latest > first ? schedule.latestAtOrBefore(new Date(latest.getTime() - 1000)) : null;
    return { fire: [latest], missed: last ? misfire(schedule, first, last) : null };
  }

  /** null for a job without a schedule. */
  schedule(): CronSchedule | null {
    const expression = this.props.cronExpression;
    return expression === null ? null : CronSchedule.parse(expression, this.props.timezone);
  }

  private slotsAfter(schedule: CronSchedule, instant: Date, count: number): Date[] {
    const start = this.props.startsAt;
    const from = start && start > instant ? new Date(start.getTime() - 1) : instant;
    const end = this.props.endsAt;
    return schedule.nextRuns(count, from).filter((slot) => !end || slot <= end);
  }

  settings(): JobSettings {
    const {
      id: _id,
      team: _t,
      createdAt: _c,
      updatedAt: _u,
      nextRunAt: _n,
      version: _v,
      pausedNote: _p,
      resumeAt: _r,
      ...settings
    } = this.props;
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
  get team(): string | null {
    return this.props.team;
  }

  /** Gives the job (its runs and history with it) to another team. */
  moveTo(team: string, now: Date): void {
    if (team === this.props.team) return;
    this.props = { ...this.props, team, updatedAt: now };
  }
  get name(): string {
    return this.props.name;
  }
  get command(): string {
    return this.props.command;
  }
  get cronExpression(): string | null {
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
  get workerSelector(): JobPlacement['workerSelector'] {
    return this.props.workerSelector;
  }
  get runOn(): JobPlacement['runOn'] {
    return this.props.runOn;
  }
  get maxConcurrent(): number | null {
    return this.props.maxConcurrent;
  }
  get concurrencyGroup(): string | null {
    return this.props.concurrencyGroup;
  }
  get priority(): number {
    return this.props.priority;
  }
  get triggers(): JobTrigger[] {
    return this.props.triggers;
  }
  get parameters(): JobParameter[] {
    return this.props.parameters;
  }
  get startsAt(): Date | null {
    return this.props.startsAt;
  }
  get endsAt(): Date | null {
    return this.props.endsAt;
  }
  get jitterSeconds(): number {
    return this.props.jitterSeconds;
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
  get pausedNote(): string | null {
    return this.props.pausedNote;
  }
  get resumeAt(): Date | null {
    return this.props.resumeAt;
  }

  private static validate(input: JobInput): JobSettings {
    const name = requireText(input.name, 'name').trim();
    if (name.length === 0) throw new InvalidArgumentError('name must not be blank', 'name');
    if ([...name].length > JOB_LIMITS.nameMaxLength) {
      throw new InvalidArgumentError(`name must be at most ${JOB_LIMITS.nameMaxLength} characters`, 'name');
    }
    const description = requireText(input.description, 'description').trim();
    if ([...description].length > JOB_LIMITS.descriptionMaxLength) {
      throw new InvalidArgumentError(
        `description must be at most ${JOB_LIMITS.descriptionMaxLength} characters`,
        'description',
      );
    }
    const command = requireText(input.command, 'command');
    if (command.trim().length === 0) throw new InvalidArgumentError('command must not be blank', 'command');
    if (Buffer.byteLength(command, 'utf8') > JOB_LIMITS.commandMaxBytes) {
      throw new InvalidArgumentError(`command must be at most ${JOB_LIMITS.commandMaxBytes} bytes`, 'command');
    }
    const timezone = canonicalTimezone(input.timezone);
    // null is no schedule; a missing one (undefined) is still the parser's 400 naming cronExpression
    const schedule = input.cronExpression === null ? null : CronSchedule.parse(input.cronExpression, timezone);
    const startsAt = instantOf(input.startsAt, 'startsAt');
    const endsAt = instantOf(input.endsAt, 'endsAt');
    if (startsAt && endsAt && endsAt < startsAt) {
      throw new InvalidArgumentError('endsAt must not be before startsAt', 'endsAt');
    }
    if (typeof input.enabled !== 'boolean') {
      throw new InvalidArgumentError('enabled must be a boolean', 'enabled');
    }
    const triggers = jobTriggersOf(input.triggers, name);
    const parameters = jobParametersOf(input.parameters);
    if (schedule !== null || triggers.length > 0) {
      const unrunnable = parameters.findIndex((parameter) => parameter.required && parameter.default === null);
      if (unrunnable >= 0) {
        const field = `parameters[${unrunnable}].default`;
        throw new InvalidArgumentError(
          `${field}: ${parameters[unrunnable]!.name} is required and the job runs by schedule or trigger, which take the defaults: give it one`,
          field,
        );
      }
    }
    return {
      name,
      description,
      command,
      cronExpression: schedule?.expression ?? null,
      timezone,
      maxRetries: requireIntegerIn(input.maxRetries, 'maxRetries', JOB_LIMITS.maxRetries),
      timeoutSeconds: requireIntegerIn(input.timeoutSeconds, 'timeoutSeconds', JOB_LIMITS.timeoutSeconds),
      enabled: input.enabled,
      misfirePolicy: requireOneOf(input.misfirePolicy, 'misfirePolicy', MISFIRE_POLICIES),
      concurrencyPolicy: requireOneOf(input.concurrencyPolicy, 'concurrencyPolicy', CONCURRENCY_POLICIES),
      alerts: jobAlertsOf(input.alerts),
      ...placementOf(input),
      triggers,
      parameters,
      startsAt,
      endsAt,
      jitterSeconds: requireIntegerIn(input.jitterSeconds, 'jitterSeconds', JOB_LIMITS.jitterSeconds),
      lateAfterSeconds: optionalIntegerIn(input.lateAfterSeconds, 'lateAfterSeconds', JOB_LIMITS.lateAfterSeconds),
      maxDurationSeconds: optionalIntegerIn(
        input.maxDurationSeconds,
        'maxDurationSeconds',
        JOB_LIMITS.maxDurationSeconds,
      ),
    };
  }
}

/** The slots in [first, last], counted up to MISSED_SLOTS_COUNTED (a long outage of a per-second job has millions). */
function misfire(schedule: CronSchedule, first: Date, last: Date): Misfire {
  const after = schedule.between(first, last, MISSED_SLOTS_COUNTED);
  const countCapped = after.length === MISSED_SLOTS_COUNTED && after[after.length - 1]!.getTime() !== last.getTime();
  return { first, last, count: after.length + 1, countCapped };
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
