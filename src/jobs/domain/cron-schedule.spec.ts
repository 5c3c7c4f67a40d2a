import { Cron } from 'croner';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { canonicalTimezone, CronSchedule } from './cron-schedule.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;

const at = (iso: string) => new Date(iso);
const isoList = (dates: Date[]) => dates.map((d) => d.toISOString());
const berlin = (expression: string) => CronSchedule.parse(expression, 'Europe/Berlin');
const utc = (expression: string) => CronSchedule.parse(expression, 'UTC');

/** Every pair of neighbours is strictly increasing: no slot is returned twice. */
function expectStrictlyIncreasing(dates: Date[]): void {
  for (const [earlier, later] of neighbours(dates)) {
    expect(later.getTime()).toBeGreaterThan(earlier.getTime());
  }
  expect(new Set(dates.map((d) => d.getTime())).size).toBe(dates.length);
}

/** The milliseconds between each slot and the next. */
function gaps(dates: Date[]): number[] {
  return neighbours(dates).map(([earlier, later]) => later.getTime() - earlier.getTime());
}

function neighbours(dates: Date[]): Array<[Date, Date]> {
  const pairs: Array<[Date, Date]> = [];
  let previous: Date | null = null;
  for (const date of dates) {
    if (previous) pairs.push([previous, date]);
    previous = date;
  }
  return pairs;
}

describe('CronSchedule.parse', () => {
  it('keeps the normalized expression and the zone', () => {
    const schedule = CronSchedule.parse('  0  9 * *   1-5 ', 'Europe/Berlin');

    expect(schedule.expression).toBe('0 9 * * 1-5');
    expect(schedule.timezone).toBe('Europe/Berlin');
  });

  it.each([
    '* * * *',
    '0 0 0 1 1 * 2030',
    'not a cron',
    '61 * * * *',
    '* 24 * * *',
    '0 0 0 * *',
    '*/0 * * * *',
    '@reboot',
    '@every 5m',
    '0 0 30 2 *',
    '',
  ])('%p is refused as an invalid cronExpression', (expression) => {
    let thrown: unknown;
    try {
      CronSchedule.parse(expression, 'UTC');
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect((thrown as InvalidArgumentError).field).toBe('cronExpression');
  });

  it('an expression that can never fire says so', () => {
    expect(() => CronSchedule.parse('0 0 31 11 *', 'UTC')).toThrow("cronExpression '0 0 31 11 *' never matches a date");
  });

  it('a leap-day expression is valid: it fires in the next leap year', () => {
    expect(utc('0 0 29 2 *').nextAfter(at('2026-01-01T00:00:00Z'))).toEqual(at('2028-02-29T00:00:00Z'));
  });
});

describe('canonicalTimezone', () => {
  it('returns the canonical spelling of a known zone', () => {
    expect(canonicalTimezone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimezone('UTC')).toBe('UTC');
  });

  it('refuses an unknown zone, naming the timezone field', () => {
    let thrown: unknown;
    try {
      canonicalTimezone('Mars/Base');
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect((thrown as InvalidArgumentError).field).toBe('timezone');
    expect((thrown as Error).message).toContain('Mars/Base');
  });
});

describe('nextAfter', () => {
  const quarterly = utc('*/15 * * * *');

  it('is strictly after the instant: an instant on a slot gets the following slot', () => {
    expect(quarterly.nextAfter(at('2026-01-10T10:15:00.000Z'))).toEqual(at('2026-01-10T10:30:00.000Z'));
  });

  it('a millisecond before a slot gets that slot', () => {
    expect(quarterly.nextAfter(at('2026-01-10T10:14:59.999Z'))).toEqual(at('2026-01-10T10:15:00.000Z'));
  });

  it('a millisecond after a slot gets the next one', () => {
    expect(quarterly.nextAfter(at('2026-01-10T10:15:00.001Z'))).toEqual(at('2026-01-10T10:30:00.000Z'));
  });

  it('a six-field expression fires on seconds', () => {
    expect(utc('*/10 * * * * *').nextAfter(at('2026-01-10T10:00:00.000Z'))).toEqual(at('2026-01-10T10:00:10.000Z'));
  });

  it.each([
    ['@hourly', '2026-01-10T11:00:00.000Z'],
    ['@daily', '2026-01-11T00:00:00.000Z'],
    ['@weekly', '2026-01-11T00:00:00.000Z'], // 2026-01-11 is a Sunday
    ['@monthly', '2026-02-01T00:00:00.000Z'],
    ['@yearly', '2027-01-01T00:00:00.000Z'],
    ['@annually', '2027-01-01T00:00:00.000Z'],
  ])('%p from 2026-01-10T10:17Z fires next at %p', (macro, next) => {
    expect(utc(macro).nextAfter(at('2026-01-10T10:17:00.000Z'))).toEqual(at(next));
  });

  it('for any instant, nextAfter is later, and every instant in between leads to the same slot', () => {
    const expressions = ['*/15 * * * *', '0 9 * * 1-5', '30 2 * * *', '0 * * * *', '0 0 1 * *'].map((e) =>
      CronSchedule.parse(e, 'Europe/Berlin'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...expressions),
        fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (schedule, instant, fraction) => {
          const next = schedule.nextAfter(new Date(instant))!;
          expect(next.getTime()).toBeGreaterThan(instant);

          const between = instant + Math.floor((next.getTime() - instant) * fraction);
          expect(schedule.nextAfter(new Date(between))).toEqual(next);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a parsed schedule is shared, and remembers its answers', () => {
  it('parsing the same expression in the same zone again gives the same schedule', () => {
    const schedule = CronSchedule.parse('0 9 * * 1-5', 'Europe/Berlin');

    expect(CronSchedule.parse('  0 9  * * 1-5 ', 'Europe/Berlin')).toBe(schedule);
    const elsewhere = CronSchedule.parse('0 9 * * 1-5', 'America/New_York');
    expect(elsewhere).not.toBe(schedule);
    expect(elsewhere.nextAfter(at('2026-01-05T00:00:00Z'))).toEqual(at('2026-01-05T14:00:00Z'));
    expect(schedule.nextAfter(at('2026-01-05T00:00:00Z'))).toEqual(at('2026-01-05T08:00:00Z'));
  });

  it('an invalid expression is refused every time it is parsed', () => {
    for (const _ of [1, 2]) expect(() => utc('61 * * * *')).toThrow(InvalidArgumentError);
  });

  it('each answer is a date of its own: changing one leaves the next answer alone', () => {
    const schedule = utc('*/15 * * * *');
    const first = schedule.nextAfter(at('2026-01-10T10:17:00Z'))!;
    const latest = schedule.latestAtOrBefore(at('2026-01-10T10:17:00Z'))!;
    first.setTime(0);
    latest.setTime(0);

    expect(schedule.nextAfter(at('2026-01-10T10:17:00Z'))).toEqual(at('2026-01-10T10:30:00Z'));
    expect(schedule.latestAtOrBefore(at('2026-01-10T10:17:00Z'))).toEqual(at('2026-01-10T10:15:00Z'));
  });

  it("remembered answers are croner's, asked once or many times", () => {
    const expressions = ['*/15 * * * *', '30 2 * * *', '0 9 * * 1-5'];
    const instants = fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') });
    fc.assert(
      fc.property(fc.constantFrom(...expressions), fc.array(instants, { minLength: 1, maxLength: 5 }), (e, list) => {
        const fresh = new Cron(e, { timezone: 'Europe/Berlin', paused: true, mode: '5-or-6-parts' });
        for (const instant of [...list, ...list]) {
          expect(berlin(e).nextAfter(new Date(instant))).toEqual(fresh.nextRun(new Date(instant)));
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('nextRuns', () => {
  it('gives the next count slots strictly after the instant, oldest first', () => {
    expect(isoList(utc('0 */6 * * *').nextRuns(3, at('2026-01-10T06:00:00Z')))).toEqual([
      '2026-01-10T12:00:00.000Z',
      '2026-01-10T18:00:00.000Z',
      '2026-01-11T00:00:00.000Z',
    ]);
  });

  it("one slot is the remembered nextAfter, croner's, and a date of its own", () => {
    const schedule = utc('37 4 * * *');
    const [next] = schedule.nextRuns(1, at('2026-01-10T06:00:00Z'));
    expect(next).toEqual(at('2026-01-11T04:37:00Z'));
    next!.setTime(0);
    expect(schedule.nextRuns(1, at('2026-01-10T06:00:00Z'))).toEqual(
      schedule.nextRuns(2, at('2026-01-10T06:00:00Z')).slice(0, 1),
    );
    expect(schedule.nextRuns(1, at('2026-01-10T06:00:00Z'))).toEqual([at('2026-01-11T04:37:00Z')]);
  });
});

describe('between(after, until, limit)', () => {
  const hourly = utc('0 * * * *');

  it('covers (after, until]: a slot at after is excluded, a slot at until included', () => {
    expect(isoList(hourly.between(at('2026-01-10T10:00:00Z'), at('2026-01-10T13:00:00Z'), 100))).toEqual([
      '2026-01-10T11:00:00.000Z',
      '2026-01-10T12:00:00.000Z',
      '2026-01-10T13:00:00.000Z',
    ]);
  });

  it('returns at most limit slots, the oldest ones', () => {
    expect(isoList(hourly.between(at('2026-01-10T10:30:00Z'), at('2026-01-11T10:30:00Z'), 2))).toEqual([
      '2026-01-10T11:00:00.000Z',
      '2026-01-10T12:00:00.000Z',
    ]);
  });

  it('is empty when no slot falls in the window', () => {
    expect(hourly.between(at('2026-01-10T10:00:00Z'), at('2026-01-10T10:59:59.999Z'), 10)).toEqual([]);
  });

  it('is empty when until is not after after', () => {
    expect(hourly.between(at('2026-01-10T10:00:00Z'), at('2026-01-10T10:00:00Z'), 10)).toEqual([]);
    expect(hourly.between(at('2026-01-10T10:00:00Z'), at('2026-01-10T08:00:00Z'), 10)).toEqual([]);
  });

  it('is empty with a limit of 0', () => {
    expect(hourly.between(at('2026-01-10T10:00:00Z'), at('2026-01-11T10:00:00Z'), 0)).toEqual([]);
  });

  it('a whole day of an every-five-minutes schedule has 288 distinct, increasing slots', () => {
    const slots = utc('*/5 * * * *').between(at('2026-01-10T00:00:00Z'), at('2026-01-11T00:00:00Z'), 1_000);

    expect(slots).toHaveLength(288);
    expectStrictlyIncreasing(slots);
    expect(new Set(gaps(slots))).toEqual(new Set([5 * MINUTE]));
  });
});

describe('time zones', () => {
  it("'0 9 * * *' in Europe/Berlin fires at 08:00Z in winter (CET, UTC+1)", () => {
    expect(berlin('0 9 * * *').nextAfter(at('2026-01-10T00:00:00Z'))).toEqual(at('2026-01-10T08:00:00Z'));
  });

  it("'0 9 * * *' in Europe/Berlin fires at 07:00Z in summer (CEST, UTC+2)", () => {
    expect(berlin('0 9 * * *').nextAfter(at('2026-07-10T00:00:00Z'))).toEqual(at('2026-07-10T07:00:00Z'));
  });

  it("'0 9 * * *' in UTC fires at 09:00Z and in America/New_York at 14:00Z in winter", () => {
    expect(utc('0 9 * * *').nextAfter(at('2026-01-10T00:00:00Z'))).toEqual(at('2026-01-10T09:00:00Z'));
    expect(CronSchedule.parse('0 9 * * *', 'America/New_York').nextAfter(at('2026-01-10T00:00:00Z'))).toEqual(
      at('2026-01-10T14:00:00Z'),
    );
  });

  it('a daily wall-clock time keeps its local hour across the change to summer time', () => {
    expect(isoList(berlin('0 9 * * *').between(at('2026-03-27T00:00:00Z'), at('2026-03-31T00:00:00Z'), 10))).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('weekday fields are read in the zone, not in UTC', () => {
    // 2026-01-12 is a Monday; 00:30 on Monday in Tokyo is still Sunday in UTC.
    expect(CronSchedule.parse('30 0 * * 1', 'Asia/Tokyo').nextAfter(at('2026-01-10T00:00:00Z'))).toEqual(
      at('2026-01-11T15:30:00Z'),
    );
  });
});

/*
 * Europe/Berlin 2026. Spring forward on 29 March: at 01:00Z the clock jumps from 02:00 CET to
 * 03:00 CEST, so local 02:00–02:59 does not exist and the local day lasts 23 hours
 * (2026-03-28T23:00Z to 2026-03-29T22:00Z). Fall back on 25 October: at 01:00Z the clock goes
 * from 03:00 CEST back to 02:00 CET, so local 02:00–02:59 happens twice (00:xxZ and 01:xxZ) and
 * the local day lasts 25 hours (2026-10-24T22:00Z to 2026-10-25T23:00Z).
 */
describe('DST in Europe/Berlin: spring forward on 2026-03-29', () => {
  it.each(['30 2 * * *', '0 2 * * *', '59 2 * * *', '0 30 2 * * *', '15 2 29 3 *'])(
    'the fixed time %p inside the gap fires once, at 03:00 CEST (01:00Z), the first instant after the gap',
    (expression) => {
      const slots = berlin(expression).between(at('2026-03-28T23:00:00Z'), at('2026-03-29T22:00:00Z'), 10);

      expect(isoList(slots)).toEqual(['2026-03-29T01:00:00.000Z']);
    },
  );

  it('a fixed time inside the gap fires at its usual local time the days before and after', () => {
    expect(isoList(berlin('30 2 * * *').between(at('2026-03-27T12:00:00Z'), at('2026-03-31T00:00:00Z'), 10))).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST: 02:30 does not exist
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('a fixed time inside the gap is due exactly at the end of the gap and not a moment later', () => {
    const schedule = berlin('30 2 * * *');

    expect(schedule.nextAfter(at('2026-03-29T00:59:59.999Z'))).toEqual(at('2026-03-29T01:00:00Z'));
    expect(schedule.nextAfter(at('2026-03-29T01:00:00Z'))).toEqual(at('2026-03-30T00:30:00Z'));
  });

  it('a fixed time inside the gap and the fixed time 03:00 both fire once, at the same instant', () => {
    const window = [at('2026-03-28T23:00:00Z'), at('2026-03-29T22:00:00Z')] as const;

    expect(isoList(berlin('0 3 * * *').between(...window, 10))).toEqual(['2026-03-29T01:00:00.000Z']);
    expect(isoList(berlin('30 2 * * *').between(...window, 10))).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('an hourly expression fires for each of the 23 real hours of the day, one hour apart', () => {
    const slots = berlin('0 * * * *').between(at('2026-03-28T22:59:59Z'), at('2026-03-29T21:59:59Z'), 100);

    expect(slots).toHaveLength(23);
    expectStrictlyIncreasing(slots);
    expect(new Set(gaps(slots))).toEqual(new Set([HOUR]));
    expect(isoList(slots.slice(0, 4))).toEqual([
      '2026-03-28T23:00:00.000Z', // 00:00 CET
      '2026-03-29T00:00:00.000Z', // 01:00 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, once
      '2026-03-29T02:00:00.000Z', // 04:00 CEST
    ]);
  });

  it('an every-15-minutes expression fires every real quarter hour: 92 slots in the 23-hour day', () => {
    const slots = berlin('*/15 * * * *').between(at('2026-03-28T22:59:59Z'), at('2026-03-29T21:59:59Z'), 1_000);

    expect(slots).toHaveLength(92);
    expectStrictlyIncreasing(slots);
    expect(new Set(gaps(slots))).toEqual(new Set([15 * MINUTE]));
  });
});

describe('DST in Europe/Berlin: fall back on 2026-10-25', () => {
  it.each([
    ['30 2 * * *', '2026-10-25T00:30:00.000Z'],
    ['0 2 * * *', '2026-10-25T00:00:00.000Z'],
    ['59 2 * * *', '2026-10-25T00:59:00.000Z'],
    ['0 30 2 * * *', '2026-10-25T00:30:00.000Z'],
    ['30 2 25 10 *', '2026-10-25T00:30:00.000Z'],
  ])('the fixed time %p inside the overlap fires once, at its first occurrence (CEST): %p', (expression, first) => {
    const slots = berlin(expression).between(at('2026-10-24T22:00:00Z'), at('2026-10-25T23:00:00Z'), 10);

    expect(isoList(slots)).toEqual([first]);
  });

  it('a fixed time inside the overlap fires at its usual local time the days before and after', () => {
    expect(isoList(berlin('30 2 * * *').between(at('2026-10-23T12:00:00Z'), at('2026-10-27T00:00:00Z'), 10))).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST); not again at 01:30Z (the second 02:30, CET)
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('a fixed time is not due again at its second occurrence, wherever the search starts', () => {
    const schedule = berlin('30 2 * * *');

    expect(schedule.nextAfter(at('2026-10-25T00:30:00Z'))).toEqual(at('2026-10-26T01:30:00Z'));
    expect(schedule.nextAfter(at('2026-10-25T01:00:00Z'))).toEqual(at('2026-10-26T01:30:00Z'));
    expect(schedule.nextAfter(at('2026-10-25T01:15:00Z'))).toEqual(at('2026-10-26T01:30:00Z'));
  });

  it('an hourly expression fires for each of the 25 real hours of the day, 02:00 twice', () => {
    const slots = berlin('0 * * * *').between(at('2026-10-24T21:59:59Z'), at('2026-10-25T22:59:59Z'), 100);

    expect(slots).toHaveLength(25);
    expectStrictlyIncreasing(slots);
    expect(new Set(gaps(slots))).toEqual(new Set([HOUR]));
    expect(isoList(slots.slice(1, 5))).toEqual([
      '2026-10-24T23:00:00.000Z', // 01:00 CEST
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T02:00:00.000Z', // 03:00 CET
    ]);
  });

  it("'30 * * * *' fires at 02:30 CEST and again at 02:30 CET", () => {
    expect(isoList(berlin('30 * * * *').between(at('2026-10-24T23:45:00Z'), at('2026-10-25T02:45:00Z'), 10))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:30:00.000Z',
    ]);
  });

  it('an every-15-minutes expression fires every real quarter hour: 100 slots in the 25-hour day', () => {
    const slots = berlin('*/15 * * * *').between(at('2026-10-24T21:59:59Z'), at('2026-10-25T22:59:59Z'), 1_000);

    expect(slots).toHaveLength(100);
    expectStrictlyIncreasing(slots);
    expect(new Set(gaps(slots))).toEqual(new Set([15 * MINUTE]));
  });

  it('an every-second expression runs straight through the change, one second apart', () => {
    const slots = berlin('* * * * * *').between(at('2026-10-25T00:59:57Z'), at('2026-10-25T01:00:02Z'), 10);

    expect(isoList(slots)).toEqual([
      '2026-10-25T00:59:58.000Z',
      '2026-10-25T00:59:59.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:00:01.000Z',
      '2026-10-25T01:00:02.000Z',
    ]);
  });
});

/*
 * The class comment sorts expressions into "a fixed hour" and "every hour or more often". croner 11
 * sorts them differently (its README): a *fixed-time* expression has a single value in each of
 * second, minute and hour; everything else (a wildcard, step, range or list in any of them) is an
 * *interval* expression, which fires at every real instant that matches: both passes of an overlap,
 * and nothing for a wall-clock time that a gap removes. These tests pin what croner does where the
 * comment says something else or nothing.
 */
describe('DST where croner is more precise than the class comment', () => {
  it("a fixed hour with a stepped minute ('*/15 2 * * *') does not fire at all on the spring-forward day", () => {
    const slots = berlin('*/15 2 * * *').between(at('2026-03-28T12:00:00Z'), at('2026-03-30T12:00:00Z'), 20);

    expect(isoList(slots)).toEqual([
      '2026-03-30T00:00:00.000Z',
      '2026-03-30T00:15:00.000Z',
      '2026-03-30T00:30:00.000Z',
      '2026-03-30T00:45:00.000Z',
    ]);
  });

  it("a fixed hour with a stepped minute ('*/15 2 * * *') fires in both passes of the fall-back overlap", () => {
    const slots = berlin('*/15 2 * * *').between(at('2026-10-24T22:00:00Z'), at('2026-10-25T23:00:00Z'), 20);

    expect(isoList(slots)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:15:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T00:45:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:15:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T01:45:00.000Z',
    ]);
  });

  it("a list of hours ('30 2,14 * * *') skips the 02:30 that the spring-forward gap removes", () => {
    const slots = berlin('30 2,14 * * *').between(at('2026-03-28T23:00:00Z'), at('2026-03-29T22:00:00Z'), 10);

    expect(isoList(slots)).toEqual(['2026-03-29T12:30:00.000Z']);
  });

  it("a list of hours ('0 2,3 * * *') fires at both 02:00s of the fall-back overlap", () => {
    const slots = berlin('0 2,3 * * *').between(at('2026-10-24T22:00:00Z'), at('2026-10-25T23:00:00Z'), 10);

    expect(isoList(slots)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });

  it("an every-two-hours expression ('0 */2 * * *') fires at both 02:00s of the fall-back overlap", () => {
    const slots = berlin('0 */2 * * *').between(at('2026-10-24T21:59:00Z'), at('2026-10-25T04:00:00Z'), 10);

    expect(isoList(slots)).toEqual([
      '2026-10-24T22:00:00.000Z', // 00:00 CEST
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T03:00:00.000Z', // 04:00 CET
    ]);
  });

  it("an hourly expression whose minute falls in the gap ('30 * * * *') skips 02:30 instead of firing at 03:00", () => {
    const slots = berlin('30 * * * *').between(at('2026-03-28T23:45:00Z'), at('2026-03-29T02:45:00Z'), 10);

    expect(isoList(slots)).toEqual([
      '2026-03-29T00:30:00.000Z', // 01:30 CET
      '2026-03-29T01:30:00.000Z', // 03:30 CEST; 02:30 does not exist and is not moved to 03:00
      '2026-03-29T02:30:00.000Z', // 04:30 CEST
    ]);
  });
});

/*
 * An independent, brute-force reading of the rule, minute by minute, for five-field expressions:
 * - fixed time (one minute, one hour): once per matching local day, at the first real instant
 *   showing that wall-clock time; if the day never shows it (a gap), at the first instant of that
 *   day after it;
 * - anything else: at every real instant whose wall-clock time matches.
 */
describe('no slot fires twice and none is skipped except as documented, around DST changes', () => {
  // The 2026 offset changes of zones with different DST shapes: a one-hour change at night
  // (Berlin, New York), southern hemisphere (Sydney), a 30-minute change (Lord Howe) and a change
  // at midnight (Santiago).
  const CHANGES: Array<[string, string]> = [
    ['Europe/Berlin', '2026-03-29T01:00:00Z'],
    ['Europe/Berlin', '2026-10-25T01:00:00Z'],
    ['America/New_York', '2026-03-08T07:00:00Z'],
    ['America/New_York', '2026-11-01T06:00:00Z'],
    ['Australia/Sydney', '2026-04-04T16:00:00Z'],
    ['Australia/Sydney', '2026-10-03T16:00:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T15:30:00Z'],
    ['America/Santiago', '2026-04-05T03:00:00Z'],
    ['America/Santiago', '2026-09-06T04:00:00Z'],
  ];

  interface Local {
    date: string;
    month: number;
    day: number;
    hour: number;
    minute: number;
    weekday: number;
  }

  const formatters = new Map<string, Intl.DateTimeFormat>();
  const localCache = new Map<string, Local>();
  const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

  function local(ms: number, zone: string): Local {
    const key = `${zone}@${ms}`;
    const cached = localCache.get(key);
    if (cached) return cached;
    let formatter = formatters.get(zone);
    if (!formatter) {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        weekday: 'short',
      });
      formatters.set(zone, formatter);
    }
    const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
    const result: Local = {
      date: `${parts.year}-${parts.month}-${parts.day}`,
      month: Number(parts.month),
      day: Number(parts.day),
      hour: Number(parts.hour),
      minute: Number(parts.minute),
      weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
    };
    localCache.set(key, result);
    return result;
  }

  /** One cron field: its text, the values it matches, and its value when it is a single one. */
  type Field = { text: string; values: Set<number>; only: number | null };

  const one = (v: number): Field => ({ text: String(v), values: new Set([v]), only: v });
  const single = (max: number): fc.Arbitrary<Field> => fc.integer({ min: 0, max }).map(one);
  const star = (max: number): fc.Arbitrary<Field> =>
    fc.constant({ text: '*', values: new Set(Array.from({ length: max + 1 }, (_, i) => i)), only: null });
  const step = (max: number, steps: number[]): fc.Arbitrary<Field> =>
    fc.constantFrom(...steps).map((n) => ({
      text: `*/${n}`,
      values: new Set(Array.from({ length: max + 1 }, (_, i) => i).filter((i) => i % n === 0)),
      only: null,
    }));
  const list = (max: number): fc.Arbitrary<Field> =>
    fc.uniqueArray(fc.integer({ min: 0, max }), { minLength: 2, maxLength: 3 }).map((vs) => ({
      text: [...vs].sort((a, b) => a - b).join(','),
      values: new Set(vs),
      only: null,
    }));
  const range = (max: number): fc.Arbitrary<Field> =>
    fc
      .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 1, max: 3 }))
      .filter(([from, length]) => from + length <= max)
      .map(([from, length]) => ({
        text: `${from}-${from + length}`,
        values: new Set(Array.from({ length: length + 1 }, (_, i) => from + i)),
        only: null,
      }));

  // Hours and minutes near the changes are the interesting ones, so they are drawn more often.
  const nearChangeHour = fc.constantFrom(0, 1, 2, 3, 23).map(one);
  const roundMinute = fc.constantFrom(0, 15, 30, 45).map(one);
  const minute = fc.oneof(roundMinute, single(59), star(59), step(59, [5, 15, 20, 30]), list(59), range(59));
  const hour = fc.oneof(nearChangeHour, single(23), star(23), step(23, [2, 3]), list(23), range(23));
  const weekday = fc.oneof({ weight: 4, arbitrary: star(6) }, { weight: 1, arbitrary: single(6) });

  /** What the brute-force model says fires in (after, until]. */
  function expectedSlots(zone: string, m: Field, h: Field, dow: Field, after: number, until: number): number[] {
    const first = Math.floor((after - 30 * HOUR) / MINUTE) * MINUTE;
    const last = until + 30 * HOUR;
    // Minutes into the local day of a fixed time; null for an interval expression.
    const fixedAt = m.only !== null && h.only !== null ? h.only * 60 + m.only : null;
    const fired: number[] = [];
    const daysDone = new Set<string>();
    // The day the enumeration starts in is only partly seen: it is long before `after` and left out.
    daysDone.add(local(first, zone).date);
    for (let ms = first; ms <= last; ms += MINUTE) {
      const t = local(ms, zone);
      if (!dow.values.has(t.weekday)) continue;
      const matches = m.values.has(t.minute) && h.values.has(t.hour);
      if (fixedAt === null) {
        if (matches) fired.push(ms);
        continue;
      }
      if (daysDone.has(t.date)) continue;
      const pastTheTime = t.hour * 60 + t.minute > fixedAt;
      if (matches || pastTheTime) {
        // The first instant of the day at or past the wall-clock time: the time itself, or the end of a gap.
        daysDone.add(t.date);
        fired.push(ms);
      }
    }
    return fired.filter((ms) => ms > after && ms <= until);
  }

  it('between() agrees minute by minute with the brute-force model in five zones', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANGES),
        fc.integer({ min: -30 * 60, max: 6 * 60 }),
        minute,
        hour,
        weekday,
        ([zone, change], offsetMinutes, m, h, dow) => {
          const expression = `${m.text} ${h.text} * * ${dow.text}`;
          const after = Date.parse(change) + offsetMinutes * MINUTE + 7_000;
          const until = after + 36 * HOUR;

          const slots = CronSchedule.parse(expression, zone).between(new Date(after), new Date(until), 10_000);

          expectStrictlyIncreasing(slots);
          expect({ expression, zone, slots: isoList(slots) }).toEqual({
            expression,
            zone,
            slots: isoList(expectedSlots(zone, m, h, dow, after, until).map((ms) => new Date(ms))),
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
