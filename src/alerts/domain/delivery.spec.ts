import { retryDelayMs } from './delivery.js';

describe('retry delays of a delivery', () => {
  it('double per attempt, between half and all of the doubled base', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1000, 0.999999))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('never exceed an hour, however many attempts', () => {
    expect(retryDelayMs(40, 10_000, 0.999999)).toBe(3_599_998);
    expect(retryDelayMs(1000, 10_000, 0)).toBe(1_800_000);
  });
});
