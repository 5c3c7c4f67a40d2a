import { durationQuantiles } from './duration-quantiles.js';

describe('durationQuantiles', () => {
  it('takes the nearest rank, whatever the order given', () => {
    expect(durationQuantiles([])).toBeNull();
    expect(durationQuantiles([40])).toEqual({ p50: 40, p95: 40 });
    expect(durationQuantiles([30, 10, 20])).toEqual({ p50: 20, p95: 30 });
    const twenty = Array.from({ length: 20 }, (_, i) => (20 - i) * 100);
    expect(durationQuantiles(twenty)).toEqual({ p50: 1000, p95: 1900 });
  });
});
