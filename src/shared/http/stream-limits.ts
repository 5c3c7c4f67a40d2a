/** The kinds of stream a node serves, as the metrics label them. */
export const STREAM_KINDS = ['events', 'output'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export interface StreamCaps {
  /** Streams one caller may hold open on this node at once; 0: no cap. */
  perCaller: number;
  /** Streams this node holds open at once, all callers together; 0: no cap. */
  perNode: number;
}

/** Whom a stream is counted against: `key` tells callers apart, `name` is what a refusal says. */
export interface StreamCaller {
  key: string;
  name: string;
}

/** Why a stream was refused: the message a client reads. */
export class StreamRefusal {
  constructor(readonly message: string) {}
}

/**
 * Counts the streams open on this node, per caller and in all, and refuses one more beyond
 * either cap. Every open stream holds a database connection's worth of reads now and then, and
 * a pool of them serves every request: a caller (a script gone wrong, a page opened in many tabs)
 * must not take them all.
 */
export class StreamLimits {
  private readonly byCaller = new Map<string, number>();
  private readonly byKind = new Map<StreamKind, number>();
  private total = 0;

  constructor(private readonly caps: StreamCaps) {}

  /** Counts a stream of `caller` as open and answers how to count it closed (once), or why it may not open. */
  open(caller: StreamCaller, kind: StreamKind): (() => void) | StreamRefusal {
    const { perCaller, perNode } = this.caps;
    const { key } = caller;
    const mine = this.byCaller.get(key) ?? 0;
    if (perCaller > 0 && mine >= perCaller) {
      return new StreamRefusal(
        `Too many open streams: '${caller.name}' has ${mine} open on this node, at most ${perCaller} ` +
          '(ORBIT_STREAMS_PER_CALLER); close one, then try again',
      );
    }
    if (perNode > 0 && this.total >= perNode) {
      return new StreamRefusal(
        `Too many open streams: this node serves ${this.total}, at most ${perNode} (ORBIT_STREAMS_PER_NODE); ` +
          'try again shortly, or another node',
      );
    }
    this.byCaller.set(key, mine + 1);
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    this.total++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const left = this.byCaller.get(key)! - 1;
      if (left === 0) this.byCaller.delete(key);
      else this.byCaller.set(key, left);
      this.byKind.set(kind, this.byKind.get(kind)! - 1);
      this.total--;
    };
  }

  /** The streams open now, of one kind. */
  openOf(kind: StreamKind): number {
    return this.byKind.get(kind) ?? 0;
  }
}
