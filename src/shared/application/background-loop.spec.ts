import { jest } from '@jest/globals';
import { BackgroundLoop } from './background-loop.js';

/** Passes that stay open until the test ends them (or make one fail). */
class Passes {
  started = 0;
  open = 0;
  most = 0;
  signals: AbortSignal[] = [];
  private ends: Array<(failure?: Error) => void> = [];

  constructor(private readonly answer: () => Date | null = () => null) {}

  readonly pass = (signal: AbortSignal) => {
    this.started++;
    this.signals.push(signal);
    this.most = Math.max(this.most, ++this.open);
    return new Promise<Date | null>((resolve, reject) =>
      this.ends.push((failure) => {
        this.open--;
        if (failure) reject(failure);
        else resolve(this.answer());
      }),
    );
  };

  /** Ends the oldest open pass (with `failure`, when given) and lets the loop react. */
  async endOne(failure?: Error): Promise<void> {
    this.ends.shift()?.(failure);
    await jest.advanceTimersByTimeAsync(0);
  }
}

class Warnings {
  readonly lines: string[] = [];
  warn(message: string): void {
    this.lines.push(message);
  }
}

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

describe('BackgroundLoop on a beat', () => {
  it('passes every interval, never two at once: a beat during a pass is skipped', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('Sweep', passes.pass, { everyMs: 1000 }, new Warnings());
    loop.start();
    await jest.advanceTimersByTimeAsync(999);
    expect(passes.started).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes.started).toBe(1);
    await jest.advanceTimersByTimeAsync(2500); // beats at 2000 and 3000 fall during the pass
    expect(passes.started).toBe(1);
    await passes.endOne();
    await jest.advanceTimersByTimeAsync(500);
    expect(passes.started).toBe(2);
    expect(passes.most).toBe(1);
    await passes.endOne();
    await loop.stop();
  });

  it('runs the first pass after firstAfterMs when that is sooner than the interval', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('Sweep', passes.pass, { everyMs: 60_000, firstAfterMs: 5000 }, new Warnings());
    loop.start();
    await jest.advanceTimersByTimeAsync(5000);
    expect(passes.started).toBe(1);
    await passes.endOne();
    await jest.advanceTimersByTimeAsync(54_999);
    expect(passes.started).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes.started).toBe(2);
    await passes.endOne();
    await loop.stop();
  });

  it('logs a failing pass and goes on with the next beat', async () => {
    const passes = new Passes();
    const warnings = new Warnings();
    const loop = new BackgroundLoop('Lease sweep', passes.pass, { everyMs: 1000 }, warnings);
    loop.start();
    await jest.advanceTimersByTimeAsync(1000);
    await passes.endOne(new Error('connection refused'));
    expect(warnings.lines).toEqual(['Lease sweep failed: Error: connection refused']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(passes.started).toBe(2);
    await passes.endOne();
    await loop.stop();
  });

  it('beats a heartbeat after each pass that completed, not after a failed one', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('Sweep', passes.pass, { everyMs: 1000 }, new Warnings());
    loop.start();
    expect(loop.lastPassAt()).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1000);
    await jest.advanceTimersByTimeAsync(200);
    await passes.endOne();
    expect(loop.lastPassAt()).toBe(1200);
    await jest.advanceTimersByTimeAsync(800);
    await passes.endOne(new Error('down'));
    expect(loop.lastPassAt()).toBe(1200);
    await loop.stop();
  });

  it('stop waits for the pass in flight, aborts its signal, and starts no more', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('Sweep', passes.pass, { everyMs: 1000 }, new Warnings());
    loop.start();
    await jest.advanceTimersByTimeAsync(1000);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    expect(loop.stopping).toBe(true);
    expect(passes.signals[0]!.aborted).toBe(true);
    await passes.endOne();
    await stopping;
    await jest.advanceTimersByTimeAsync(5000);
    expect(passes.started).toBe(1);
  });
});

describe('BackgroundLoop woken', () => {
  it('with one lane, a wake during a pass runs one more pass after it, however many wakes came', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('test', passes.pass, { pollMs: 60_000 }, new Warnings());
    loop.start();
    loop.wake();
    loop.wake();
    expect(passes.started).toBe(1);
    await passes.endOne();
    expect(passes.started).toBe(2);
    await passes.endOne();
    expect(passes.started).toBe(2);
    expect(passes.most).toBe(1);
    await loop.stop();
  });

  it('with two lanes, a wake that may not wait starts a second pass beside the first; others wait', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('test', passes.pass, { pollMs: 60_000, lanes: 2 }, new Warnings());
    loop.start();
    loop.wake();
    expect(passes.open).toBe(1);
    loop.wake(true);
    expect(passes.open).toBe(2);
    loop.wake(true);
    expect(passes.started).toBe(2);
    await passes.endOne();
    expect(passes.started).toBe(3);
    await passes.endOne();
    await passes.endOne();
    expect(passes.started).toBe(3);
    expect(passes.most).toBe(2);
    await loop.stop();
  });

  it('sleeps until the instant the pass answered, at most the poll; a failed pass waits the poll', async () => {
    let answer: Date | null = new Date(300);
    const passes = new Passes(() => answer);
    const warnings = new Warnings();
    const loop = new BackgroundLoop('scheduler pass', passes.pass, { pollMs: 1000 }, warnings);
    loop.start();
    await passes.endOne();
    await jest.advanceTimersByTimeAsync(299);
    expect(passes.started).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes.started).toBe(2);
    answer = new Date(60_000);
    await passes.endOne();
    await jest.advanceTimersByTimeAsync(1000);
    expect(passes.started).toBe(3);
    await passes.endOne(new Error('deadlock'));
    expect(warnings.lines).toEqual(['scheduler pass failed: Error: deadlock']);
    await jest.advanceTimersByTimeAsync(999);
    expect(passes.started).toBe(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes.started).toBe(4);
    await passes.endOne();
    await loop.stop();
  });

  it('without a poll, sleeps until woken', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('test', passes.pass, {}, new Warnings());
    loop.start();
    await passes.endOne();
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(passes.started).toBe(1);
    loop.wake();
    expect(passes.started).toBe(2);
    await passes.endOne();
    await loop.stop();
  });

  it('idle waits for the passes in flight and those they started, and leaves the loop running', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('test', passes.pass, { pollMs: 60_000 }, new Warnings());
    loop.start();
    loop.wake(); // during the first pass: one more after it
    let idle = false;
    const idling = loop.idle().then(() => (idle = true));
    await passes.endOne();
    expect(idle).toBe(false);
    expect(passes.started).toBe(2);
    await passes.endOne();
    await idling;
    expect(idle).toBe(true);
    expect(passes.signals[1]!.aborted).toBe(false);
    loop.wake();
    expect(passes.started).toBe(3);
    await passes.endOne();
    await loop.stop();
  });

  it('runs nothing before start, and stop waits for every lane', async () => {
    const passes = new Passes();
    const loop = new BackgroundLoop('test', passes.pass, { pollMs: 60_000, lanes: 2 }, new Warnings());
    loop.wake();
    expect(passes.started).toBe(0);
    loop.start();
    loop.wake(true);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await passes.endOne();
    expect(stopped).toBe(false);
    await passes.endOne();
    await stopping;
    expect(stopped).toBe(true);
    loop.wake();
    expect(passes.started).toBe(2);
  });
});
