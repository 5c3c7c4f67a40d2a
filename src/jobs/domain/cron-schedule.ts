import { Cron } from 'croner';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);

/**
 * A cron expression bound to an IANA time zone. Parsing and the DST rule are croner's: a
 * field counts as a fixed time only when second, minute and hour each hold one value
 * (`30 2 * * *`). Such a time inside a spring-forward gap fires once, at the first instant
 * after the gap, and in a fall-back overlap it fires once, at the first occurrence. Every
 * other expression (steps, lists, ranges, `*`) fires at each real instant whose local time
 * matches: in a gap the missing local times do not fire, in an overlap both passes do.
 * Either way no instant fires twice.
 */
export class CronSchedule {
  private constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly cron: Cron,
  ) {}

  static parse(expression: unknown, timezone: string): CronSchedule {
    if (typeof expression !== 'string' || expression.trim() === '') {
      throw new InvalidArgumentError('cronExpression must not be blank', 'cronExpression');
    }
    const text = expression.trim().replace(/\s+/g, ' ');
    if (text.startsWith('@')) {
      if (!MACROS.has(text.toLowerCase())) {
        throw new InvalidArgumentError(
          `cronExpression '${text}' is not supported: use 5 fields, 6 fields (with seconds) or one of ${[...MACROS].join(', ')}`,
          'cronExpression',
        );
      }
    } else if (![5, 6].includes(text.split(' ').length)) {
      throw new InvalidArgumentError(
        `cronExpression '${text}' must have 5 fields (minute hour day month weekday) or 6 fields (second first)`,
        'cronExpression',
      );
    }
    let cron: Cron;
    try {
      cron = new Cron(text, { timezone, paused: true, mode: '5-or-6-parts' });
    } catch (error) {
      const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
      throw new InvalidArgumentError(`cronExpression '${text}' is not valid: ${reason}`, 'cronExpression');
    }
    const schedule = new CronSchedule(text, timezone, cron);
    if (schedule.nextAfter(new Date(0)) === null) {
      throw new InvalidArgumentError(`cronExpression '${text}' never matches a date`, 'cronExpression');
    }
    return schedule;
  }

  /** The first fire time strictly after `instant`, or null when there is none. */
  nextAfter(instant: Date): Date | null {
    return this.cron.nextRun(instant);
  }

  /** The next `count` fire times strictly after `instant`. */
  nextRuns(count: number, instant: Date): Date[] {
    return this.cron.nextRuns(count, instant);
  }

  /** The last fire time at or before `instant`, or null when there is none. */
  latestAtOrBefore(instant: Date): Date | null {
    // croner looks back from whole seconds, strictly before the one given; slots are whole seconds
    const nextSecond = Math.floor(instant.getTime() / 1000) * 1000 + 1000;
    return this.cron.previousRuns(1, new Date(nextSecond))[0] ?? null;
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
