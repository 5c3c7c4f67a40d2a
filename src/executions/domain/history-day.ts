const DAY_MS = 24 * 60 * 60 * 1000;

/** A UTC day of the history: the finished runs created from `start` (included) to `end` (excluded). */
export interface HistoryDay {
  start: Date;
  end: Date;
}

/** The start of the UTC day that holds `at`. */
export function dayOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** The UTC days from `at`'s through `ahead` days after it: those the history should have made. */
export function daysAhead(at: Date, ahead: number): HistoryDay[] {
  const first = dayOf(at).getTime();
  return Array.from({ length: ahead + 1 }, (_, i) => ({
    start: new Date(first + i * DAY_MS),
    end: new Date(first + (i + 1) * DAY_MS),
  }));
}

/**
 * Whether retention may drop the day whole: all of it was created before the start of the UTC day
 * of `olderThan` (retention's line). The runs of the day the line falls in wait for the next day,
 * so that no day is ever deleted row by row.
 */
export function isPastRetention(day: HistoryDay, olderThan: Date): boolean {
  return day.end.getTime() <= dayOf(olderThan).getTime();
}

/**
 * The creation line of retention's deletes by rows. The runs of the history's days go with their
 * day (see isPastRetention), so rows there are deleted only up to the start of the UTC day of
 * `olderThan`: a day is never deleted row by row as the line moves through it. Before the first
 * day (the history from before the days, where no day is dropped), rows are deleted up to the line
 * itself. With no day at all, the line alone decides.
 */
export function rowsCreatedBefore(olderThan: Date, days: readonly HistoryDay[]): Date {
  const first = days[0]?.start;
  if (first === undefined) return olderThan;
  return new Date(Math.max(dayOf(olderThan).getTime(), Math.min(first.getTime(), olderThan.getTime())));
}
