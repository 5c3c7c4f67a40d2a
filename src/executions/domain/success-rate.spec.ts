import { successRate } from './success-rate.js';

describe('successRate', () => {
  it.each([
    [3, 1, 0.75],
    [0, 2, 0],
    [5, 0, 1],
  ])('%i succeeded and %i failed is %d', (succeeded, failed, rate) => {
    expect(successRate(succeeded, failed)).toBe(rate);
  });

  it('is null without a run that succeeded or failed', () => {
    expect(successRate(0, 0)).toBeNull();
  });
});
