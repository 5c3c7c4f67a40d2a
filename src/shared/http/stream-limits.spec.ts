import { StreamLimits, StreamRefusal } from './stream-limits.js';

const ana = { key: 'token:1', name: 'ana' };
const bo = { key: 'token:2', name: 'bo' };

describe('StreamLimits', () => {
  it('refuses a caller beyond its cap, and the node beyond its own, naming the setting', () => {
    const limits = new StreamLimits({ perCaller: 2, perNode: 3 });
    limits.open(ana, 'events');
    limits.open(ana, 'output');
    expect(limits.open(ana, 'events')).toEqual(
      new StreamRefusal(
        "Too many open streams: 'ana' has 2 open on this node, at most 2 (ORBIT_STREAMS_PER_CALLER); close one, then try again",
      ),
    );
    expect(limits.open(bo, 'events')).toBeInstanceOf(Function);
    expect((limits.open(bo, 'events') as StreamRefusal).message).toContain('at most 3 (ORBIT_STREAMS_PER_NODE)');
  });

  it('a stream counted closed twice frees one place only', () => {
    const limits = new StreamLimits({ perCaller: 1, perNode: 0 });
    const close = limits.open(ana, 'output') as () => void;
    close();
    close();
    expect(limits.openOf('output')).toBe(0);
    expect(limits.open(ana, 'output')).toBeInstanceOf(Function);
    expect(limits.open(ana, 'output')).toBeInstanceOf(StreamRefusal);
    expect(limits.openOf('output')).toBe(1);
  });

  it('0 is no cap', () => {
    const limits = new StreamLimits({ perCaller: 0, perNode: 0 });
    for (let i = 0; i < 1_000; i++) expect(limits.open(ana, 'events')).toBeInstanceOf(Function);
    expect(limits.openOf('events')).toBe(1_000);
  });
});
