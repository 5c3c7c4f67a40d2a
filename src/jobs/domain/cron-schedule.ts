import { Cron } from 'croner';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);

/** Parsed schedules kept per (zone, expression): every job of a thundering herd shares one. */
const PARSED_LIMIT = 1000;
const parsed = new Map<string, CronSchedule>();
/** Answers kept per schedule: jobs sharing it ask for the same instants in one scheduler pass. */
const ANSWERS_LIMIT = 64;

/**
 * A cron expression bound to an IANA time zone. Parsing and the DST rule are croner's: a
 * field counts as a fixed time only when second, minute and hour each hold one value
 * (`30 2 * * *`). Such a time inside a spring-forward gap fires once, at the first instant
 * after the gap, and in a fall-back overlap it fires once, at the first occurrence. Every
 * other expression (steps, lists, ranges, `*`) fires at each real instant whose local time
 * matches: in a gap the missing local times do not fire, in an overlap both passes do.
 * Either way no instant fires twice.
 *
 * A schedule is immutable, so parses and the answers of `nextAfter` and `latestAtOrBefore`
 * are cached: croner's zone arithmetic costs tens of microseconds per call, and a pass over
 * thousands of jobs with one expression would otherwise repeat it for each.
 */
export class CronSchedule {
  private readonly answers = new Map<string, Date | null>();

  private constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly cron: Cron,
  ) {}

  /** `field` is the name the caller knows the expression by, which every error message starts with. */
  static parse(expression: unknown, timezone: string, field = 'cronExpression'): CronSchedule {
    if (typeof expression !== 'string' || expression.trim() === '') {
      throw new InvalidArgumentError(`${field} must not be blank`, field);
    }
    const text = expression.trim().replace(/\s+/g, ' ');
    const key = `${timezone} ${text}`;
    let schedule = parsed.get(key);
    if (!schedule) {
      schedule = CronSchedule.compile(text, timezone, field);
      if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value!);
      parsed.set(key, schedule);
    }
    return schedule;
  }

  private static compile(text: string, timezone: string, field: string): CronSchedule {
    if (text.startsWith('@')) {
      if (!MACROS.has(text.toLowerCase())) {
        throw new InvalidArgumentError(
          `${field} '${text}' is not supported: use 5 fields, 6 fields (with seconds) or one of ${[...MACROS].join(', ')}`,
          field,
        );
      }
    } else if (![5, 6].includes(text.split(' ').length)) {
      throw new InvalidArgumentError(
        `${field} '${text}' must have 5 fields (minute hour day month weekday) or 6 fields (second first)`,
        field,
      );
    }
    let cron: Cron;
    try {
      cron = new Cron(text, { timezone, paused: true, mode: '5-or-6-parts' });
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
      throw new InvalidArgumentError(`${field} '${text}' is not valid: ${reason}`, field);
    }
    const schedule = new CronSchedule(text, timezone, cron);
    if (schedule.nextAfter(new Date(0)) === null) {
      throw new InvalidArgumentError(`${field} '${text}' never matches a date`, field);
    }
    return schedule;
  }

  /** The first fire time strictly after `instant`, or null when there is none. */
  nextAfter(instant: Date): Date | null {
    return this.remembered(`>${instant.getTime()}`, () => this.cron.nextRun(instant));
  }

  /**
   * The next `count` fire times strictly after `instant`. The one next slot, which the scheduler
   * plans for every job it fires, is the cached `nextAfter`: a herd's jobs share its answer.
   */
  nextRuns(count: number, instant: Date): Date[] {
    if (count !== 1) return this.cron.nextRuns(count, instant);
    const next = this.nextAfter(instant);
    return next ? [next] : [];
  }

  /** The last fire time at or before `instant`, or null when there is none. */
  latestAtOrBefore(instant: Date): Date | null {
    // croner looks back from whole seconds, strictly before the one given; slots are whole seconds
    const nextSecond = Math.floor(instant.getTime() / 1000) * 1000 + 1000;
    return this.remembered(`<${nextSecond}`, () => this.cron.previousRuns(1, new Date(nextSecond))[0] ?? null);
  }

  /** Fire times in (after, until], at most `limit` of them, oldest first. */
  between(after: Date, until: Date, limit: number): Date[] {
    const slots: Date[] = [];
    let cursor: Date | null = after;
    while (slots.length < limit && (cursor = this.nextAfter(cursor)) !== null && cursor <= until) {
      slots.push(cursor);
    }
    return slots;
  }

  /** The cached answer, computed on the first ask; a copy, since callers keep the dates they get. */
  private remembered(key: string, compute: () => Date | null): Date | null {
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = compute();
      if (this.answers.size >= ANSWERS_LIMIT) this.answers.clear();
      this.answers.set(key, answer);
    }
    return answer && new Date(answer.getTime());
  }
}

/** Returns an IANA time zone name as stored, or throws when the zone is unknown. */
export function canonicalTimezone(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidArgumentError('timezone must not be blank', 'timezone');
  }
  const zone = value.trim();
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    // fix the case of a name (utc → UTC) but keep the user's choice of alias (Asia/Kolkata)
    return canonical.toLowerCase() === zone.toLowerCase() ? canonical : zone;
  } catch {
    throw new InvalidArgumentError(
      `timezone '${value}' is not an IANA time zone (for example UTC or Europe/Berlin)`,
      'timezone',
    );
  }
}
