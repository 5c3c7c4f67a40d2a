import { jest } from '@jest/globals';
import { Rereads } from './rereads.js';

/** A read that takes `ms` of fake time, counted. */
function slowRead(ms: number) {
  const reads: number[] = [];
  const read = () =>
    new Promise<void>((resolve) => {
      reads.push(Date.now());
      setTimeout(resolve, ms);
    });
  return { reads, read };
}

describe('Rereads', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('reads at once when asked and idle', async () => {
    const { reads, read } = slowRead(10);
    new Rereads(read, 250).request();
    await jest.advanceTimersByTimeAsync(0);
    expect(reads).toEqual([0]);
  });

  it('a burst of 2,000 requests over a second makes one read per 250 ms, the last after the burst', async () => {
    const { reads, read } = slowRead(40);
    const rereads = new Rereads(read, 250);
    for (let i = 0; i < 2000; i++) {
      rereads.request();
      await jest.advanceTimersByTimeAsync(0.5);
    }
    await jest.advanceTimersByTimeAsync(2000);
    expect(reads).toEqual([0, 250, 500, 750, 1000]);
  });

  it('never reads twice at a time: a read slower than the gap is followed by one read', async () => {
    const { reads, read } = slowRead(600);
    const rereads = new Rereads(read, 250);
    rereads.request();
    await jest.advanceTimersByTimeAsync(100);
    rereads.request();
    rereads.request();
    await jest.advanceTimersByTimeAsync(3000);
    expect(reads).toEqual([0, 600]);
  });

  it('waits while held, reads once when resumed, and nothing after stop', async () => {
    const { reads, read } = slowRead(10);
    let hidden = true;
    const rereads = new Rereads(read, 250, () => hidden);
    rereads.request();
    rereads.request();
    await jest.advanceTimersByTimeAsync(1000);
    expect(reads).toEqual([]);
    hidden = false;
    rereads.resume();
    await jest.advanceTimersByTimeAsync(1000);
    expect(reads).toEqual([1000]);
    rereads.stop();
    rereads.request();
    await jest.advanceTimersByTimeAsync(1000);
    expect(reads).toEqual([1000]);
  });
});
