import { dayOf, daysAhead, isPastRetention, rowsCreatedBefore } from './history-day.js';

describe("the history's days", () => {
  it('a day is the UTC day that holds the instant', () => {
    expect(dayOf(new Date('2027-01-05T23:59:59.999Z'))).toEqual(new Date('2027-01-05T00:00:00.000Z'));
    expect(dayOf(new Date('2027-01-06T00:00:00.000Z'))).toEqual(new Date('2027-01-06T00:00:00.000Z'));
  });

  it("the days to make run from today's through the days ahead", () => {
    const days = daysAhead(new Date('2027-01-05T13:00:00.000Z'), 2);
    expect(days.map((day) => [day.start.toISOString(), day.end.toISOString()])).toEqual([
      ['2027-01-05T00:00:00.000Z', '2027-01-06T00:00:00.000Z'],
      ['2027-01-06T00:00:00.000Z', '2027-01-07T00:00:00.000Z'],
      ['2027-01-07T00:00:00.000Z', '2027-01-08T00:00:00.000Z'],
    ]);
  });

  it("a day goes whole once all of it is older than the UTC day retention's line falls in", () => {
    const [day] = daysAhead(new Date('2027-01-05T00:00:00.000Z'), 0);
    expect(isPastRetention(day!, new Date('2027-01-06T00:00:00.000Z'))).toBe(true);
    // the line falls in the next day: the day's last runs may not all be past it yet
    expect(isPastRetention(day!, new Date('2027-01-05T23:59:59.999Z'))).toBe(false);
  });

  it('rows are deleted up to the line before the first day, and up to the start of its day among the days', () => {
    const line = new Date('2027-01-05T13:00:00.000Z');
    const days = (first: string) => daysAhead(new Date(first), 3);
    // no day: the line; the days begin after the line (just after the upgrade): the line
    expect(rowsCreatedBefore(line, [])).toEqual(line);
    expect(rowsCreatedBefore(line, days('2027-01-06T00:00:00.000Z'))).toEqual(line);
    // the line falls in a day: the start of that day
    expect(rowsCreatedBefore(line, days('2027-01-03T00:00:00.000Z'))).toEqual(new Date('2027-01-05T00:00:00.000Z'));
    expect(rowsCreatedBefore(line, days('2027-01-05T00:00:00.000Z'))).toEqual(new Date('2027-01-05T00:00:00.000Z'));
  });
});
