import { setTimeout as sleep } from 'node:timers/promises';
import { Execution } from '../domain/execution.js';
import { ExecutionOutput } from './execution-output.repository.js';

/** Between two reads of the stored output; workers store it about every second. */
export const OUTPUT_POLL_MS = 400;

/** One read of an execution: its status first, then its output (see followOutput). */
export interface OutputSnapshot {
  execution: Execution;
  output: ExecutionOutput;
}

/** Where a poll reads from: ExecutionsService answers both (NotFoundError for an unknown id). */
export interface OutputSource {
  get(id: string): Promise<Execution>;
  output(id: string): Promise<ExecutionOutput>;
}

/**
 * The one loop that reads an execution for all its followers on this node: a read every
 * `pollMs` while anyone follows. Each read is kept as the newest, with a number that grows;
 * a follower takes the newest it has not had yet, so a slow one skips reads rather than holding
 * the loop back.
 */
class Poll {
  followers = 0;
  private newest: { snapshot: OutputSnapshot; number: number } | undefined;
  private failure: { error: unknown } | undefined;
  private readonly waiting = new Set<() => void>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly source: OutputSource,
    private readonly id: string,
    private readonly pollMs: number,
    private readonly ended: () => void,
  ) {
    void this.loop();
  }

  /** The newest read after read `seen` (0: none yet), once there is one; undefined when `signal` aborts. */
  async after(seen: number, signal: AbortSignal): Promise<{ snapshot: OutputSnapshot; number: number } | undefined> {
    while (!signal.aborted) {
      if (this.failure) throw this.failure.error;
      if (this.newest && this.newest.number > seen) return this.newest;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiting.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.waiting.add(wake);
        signal.addEventListener('abort', wake);
      });
    }
    return undefined;
  }

  stop(): void {
    this.stopped.abort();
  }

  private async loop(): Promise<void> {
    try {
      for (let number = 1; !this.stopped.signal.aborted; number++) {
        const execution = await this.source.get(this.id);
        const output = await this.source.output(this.id);
        this.newest = { snapshot: { execution, output }, number };
        this.wakeAll();
        await sleep(this.pollMs, undefined, { signal: this.stopped.signal }).catch(() => undefined);
      }
    } catch (error) {
      this.failure = { error };
      this.wakeAll();
    } finally {
      this.ended();
    }
  }

  private wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }
}

/**
 * The polls of the executions followed on this node, one per execution however many clients
 * follow it: a poll starts with its first follower and stops when its last one leaves. A failed
 * read ends the poll and is thrown to each of its followers; the next follower starts a new one.
 */
export class OutputPolls {
  private readonly polls = new Map<string, Poll>();

  constructor(
    private readonly source: OutputSource,
    readonly pollMs: number,
  ) {}

  /** How many executions are being read now. */
  get running(): number {
    return this.polls.size;
  }

  /** Every read of execution `id` from now on (the newest one first, if a poll already runs), until `signal` aborts. */
  async *follow(id: string, signal: AbortSignal): AsyncGenerator<OutputSnapshot, void, undefined> {
    const poll = this.join(id);
    try {
      for (let seen = 0; ;) {
        const next = await poll.after(seen, signal);
        if (!next) return;
        seen = next.number;
        yield next.snapshot;
      }
    } finally {
      if (--poll.followers === 0) this.end(id, poll);
    }
  }

  private join(id: string): Poll {
    let poll = this.polls.get(id);
    if (!poll) {
      const created: Poll = new Poll(this.source, id, this.pollMs, () => this.end(id, created));
      poll = created;
      this.polls.set(id, poll);
    }
    poll.followers++;
    return poll;
  }

  private end(id: string, poll: Poll): void {
    poll.stop();
    if (this.polls.get(id) === poll) this.polls.delete(id);
  }
}
