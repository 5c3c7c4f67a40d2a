import fc from 'fast-check';
import { retryDelayMs } from './retry-backoff.js';

const BASE = 1_000;
const MAX = 60_000;
const never = () => 0;
const almostOne = () => 0.999_999_999;

describe('retryDelayMs', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [5, 16_000],
    [6, 32_000],
    [7, 60_000],
    [8, 60_000],
    [50, 60_000],
    [5_000, 60_000],
  ])('attempt %p grows exponentially from the base and is capped: full delay %p', (attempt, full) => {
    expect(retryDelayMs(attempt, BASE, MAX, almostOne)).toBe(full);
    expect(retryDelayMs(attempt, BASE, MAX, never)).toBe(full / 2);
  });

  it('jitter spreads the delay linearly between half and the full exponential delay', () => {
    expect(retryDelayMs(3, BASE, MAX, () => 0)).toBe(2_000);
    expect(retryDelayMs(3, BASE, MAX, () => 0.25)).toBe(2_500);
    expect(retryDelayMs(3, BASE, MAX, () => 0.5)).toBe(3_000);
    expect(retryDelayMs(3, BASE, MAX, () => 0.75)).toBe(3_500);
  });

  it('an attempt below 1 is treated as the first', () => {
    expect(retryDelayMs(0, BASE, MAX, never)).toBe(500);
    expect(retryDelayMs(-3, BASE, MAX, almostOne)).toBe(1_000);
  });

  it('the cap applies even when the base alone exceeds it', () => {
    expect(retryDelayMs(1, 10_000, 4_000, almostOne)).toBe(4_000);
    expect(retryDelayMs(1, 10_000, 4_000, never)).toBe(2_000);
  });

  it('the delay is a whole number of milliseconds', () => {
    expect(retryDelayMs(1, 3, 100, () => 0.5)).toBe(2); // 1.5 + 0.75 = 2.25
    expect(Number.isInteger(retryDelayMs(2, 333, 10_000, () => 0.123))).toBe(true);
  });

  it('the same injected random value gives the same delay', () => {
    const draws = [0.1, 0.9, 0.42];
    const first = draws.map((r) => retryDelayMs(4, BASE, MAX, () => r));
    const second = draws.map((r) => retryDelayMs(4, BASE, MAX, () => r));

    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(3);
  });

  it('asks the random source exactly once per delay', () => {
    let calls = 0;
    retryDelayMs(2, BASE, MAX, () => {
      calls += 1;
      return 0.3;
    });

    expect(calls).toBe(1);
  });

  it('for any attempt, base, cap and random draw, the delay lies between half and all of the capped exponential', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, max, draw) => {
          const exponential = Math.min(max, base * 2 ** (attempt - 1));
          const delay = retryDelayMs(attempt, base, max, () => draw);

          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(exponential / 2));
          expect(delay).toBeLessThanOrEqual(exponential);
          expect(delay).toBeLessThanOrEqual(max);
        },
      ),
    );
  });

  it('a later attempt never has a shorter delay for the same random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, max, draw) => {
          expect(retryDelayMs(attempt + 1, base, max, () => draw)).toBeGreaterThanOrEqual(
            retryDelayMs(attempt, base, max, () => draw),
          );
        },
      ),
    );
  });

  it('with the default random source the delay still stays within the bounds', () => {
    for (let i = 0; i < 200; i += 1) {
      const delay = retryDelayMs(3, BASE, MAX);
      expect(delay).toBeGreaterThanOrEqual(2_000);
      expect(delay).toBeLessThanOrEqual(4_000);
    }
  });
});
