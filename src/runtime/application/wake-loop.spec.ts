import { Logger } from '@nestjs/common';
import { WakeLoop } from './wake-loop.js';

/** A pass that stays open until the test lets it end. */
class Passes {
  started = 0;
  open = 0;
  most = 0;
  private ends: Array<() => void> = [];

  readonly pass = () => {
    this.started++;
    this.most = Math.max(this.most, ++this.open);
    return new Promise<Date | null>((resolve) =>
      this.ends.push(() => {
        this.open--;
        resolve(null);
      }),
    );
  };

  /** Ends the oldest open pass and lets the loop react. */
  async endOne(): Promise<void> {
    this.ends.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const quiet = { warn: () => undefined } as unknown as Logger;

describe('WakeLoop', () => {
  it('with one lane, a wake during a pass runs one more pass after it, however many wakes came', async () => {
    const passes = new Passes();
    const loop = new WakeLoop('test', passes.pass, 60_000, quiet);
    loop.wake();
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
    const loop = new WakeLoop('test', passes.pass, 60_000, quiet, 2);
    loop.wake();
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

  it('stop waits for every lane', async () => {
    const passes = new Passes();
    const loop = new WakeLoop('test', passes.pass, 60_000, quiet, 2);
    loop.wake();
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
