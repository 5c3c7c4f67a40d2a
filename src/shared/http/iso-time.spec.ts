import fc from 'fast-check';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('is toISOString for any date', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        expect(isoTime(date)).toBe(date.toISOString());
      }),
      { numRuns: 5000 },
    );
  });

  it('is toISOString at the edges of the fast path and of every field', () => {
    for (const text of [
      '1000-01-01T00:00:00.000Z',
      '0999-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59.999Z',
      '2026-02-28T09:05:07.010Z',
      '2024-02-29T23:59:59.100Z',
      '1970-01-01T00:00:00.000Z',
    ]) {
      expect(isoTime(new Date(text))).toBe(text);
    }
    expect(isoTime(new Date(8.64e15))).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTime(new Date(-1))).toBe('1969-12-31T23:59:59.999Z');
  });

  it('throws for an invalid date, as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
