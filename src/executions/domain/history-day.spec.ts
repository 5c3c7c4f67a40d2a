import { dayOf, daysAhead, isPastRetention } from './history-day.js';

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
});
