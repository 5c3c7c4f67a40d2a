import { took, when } from './when.js';

const NOW = Date.parse('2026-12-04T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

describe('when: an instant as a person at a terminal reads it', () => {
  it.each([
    [-12_000, '12 s ago'],
    [-5 * 60_000, '5 min ago'],
    [-3 * 3_600_000, '3 h ago'],
    [30_000, 'in 30 s'],
    [90 * 60_000, 'in 2 h'],
  ])('%i ms from now is %s', (offset, text) => {
    expect(when(at(offset), NOW)).toBe(text);
  });

  it('further than a day, the local date and time, short, with the year only when it is another', () => {
    const format = (options: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat(undefined, {
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        ...options,
      });
    expect(when('2026-11-30T08:15:00.000Z', NOW)).toBe(format({}).format(new Date('2026-11-30T08:15:00.000Z')));
    expect(when('2025-06-01T08:15:00.000Z', NOW)).toBe(
      format({ year: 'numeric' }).format(new Date('2025-06-01T08:15:00.000Z')),
    );
  });

  it('nothing is nothing', () => {
    expect(when(null, NOW)).toBeNull();
  });
});

describe('took: a duration', () => {
  it.each([
    [850, '850 ms'],
    [12_400, '12.4 s'],
    [185_000, '3 min 05 s'],
    [2 * 3_600_000 + 7 * 60_000, '2 h 07 min'],
  ])('%i ms is %s', (ms, text) => {
    expect(took(at(-ms), at(0), NOW)).toBe(text);
  });

  it('a run that has not ended has taken until now; one that has not started, nothing', () => {
    expect(took(at(-2_000), null, NOW)).toBe('2.0 s');
    expect(took(null, null, NOW)).toBeNull();
  });
});
