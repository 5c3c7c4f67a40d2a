import { authHeaders, currentToken, tokenRefused, watchToken, type OrbitEvent } from '../api/client';
import { SseParser } from './sse-parser';

export interface StreamFollower {
  event: (event: OrbitEvent) => void;
  /** The stream came up (true) or went down (false). */
  state: (up: boolean) => void;
  /** The stream opened without a cursor to resume from: what was read before it may be stale. */
  resync: () => void;
}

/** Orbit sends a keep-alive every 15 s: this long without a byte, the connection is taken for dead. */
const SILENCE_MS = 40_000;
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 15_000;

/**
 * The tab's one connection to GET /events/stream, shared by every view. EventSource cannot send
 * the bearer header and the token never goes in a URL, so this follows the stream with fetch
 * (which sends a signed-in person's session cookie by itself),
 * parses the frames itself, and after a drop reconnects with backoff, resuming after the last
 * id it saw (Last-Event-ID): what happened meanwhile arrives then, nothing twice. It runs while
 * a credential is set and somebody follows; signing out or a 401 closes it.
 */
class EventStream {
  private readonly followers = new Set<StreamFollower>();
  private up = false;
  private lastEventId: string | undefined;
  private running: AbortController | undefined;
  private wake: (() => void) | undefined;

  constructor() {
    watchToken((token) => {
      this.close();
      this.lastEventId = undefined;
      if (token && this.followers.size > 0) this.open();
    });
    // a tab back online does not wait out its backoff
    window.addEventListener('online', () => this.wake?.());
  }

  get isUp(): boolean {
    return this.up;
  }

  follow(follower: StreamFollower): () => void {
    this.followers.add(follower);
    if (!this.running && currentToken()) this.open();
    return () => this.followers.delete(follower);
  }

  private open(): void {
    const running = new AbortController();
    this.running = running;
    void this.run(running.signal);
  }

  private close(): void {
    this.running?.abort();
    this.running = undefined;
    this.setUp(false);
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    for (const follower of this.followers) follower.state(up);
  }

  private async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const outcome = await this.connect(signal).catch(() => 'dropped' as const);
      if (signal.aborted) return;
      this.setUp(false);
      if (outcome === 'refused') {
        tokenRefused();
        return;
      }
      if (outcome === 'opened') failures = 0;
      await this.pause(Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures++) * (0.75 + Math.random() / 2), signal);
    }
  }

  /** One connection, read until it ends: whether it was refused, or opened before it dropped. */
  private async connect(signal: AbortSignal): Promise<'refused' | 'opened' | 'dropped'> {
    if (!currentToken()) return 'refused';
    const connection = new AbortController();
    const both = AbortSignal.any([signal, connection.signal]);
    const headers: Record<string, string> = { ...authHeaders(), Accept: 'text/event-stream' };
    if (this.lastEventId !== undefined) headers['Last-Event-ID'] = this.lastEventId;
    let silence = setTimeout(() => connection.abort(), SILENCE_MS);
    try {
      const response = await fetch(`${window.location.origin}/events/stream`, {
        headers,
        signal: both,
        cache: 'no-store',
      });
      if (response.status === 401) return 'refused';
      if (!response.ok || !response.body) return 'dropped';
      const resumed = this.lastEventId !== undefined;
      const parser = new SseParser(this.lastEventId);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let opened = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return opened ? 'opened' : 'dropped';
        clearTimeout(silence);
        silence = setTimeout(() => connection.abort(), SILENCE_MS);
        for (const message of parser.push(value)) this.deliver(message.data);
        if (parser.lastEventId !== '') this.lastEventId = parser.lastEventId;
        if (!opened && this.lastEventId !== undefined) {
          opened = true;
          this.setUp(true);
          if (!resumed) for (const follower of this.followers) follower.resync();
        }
      }
    } finally {
      clearTimeout(silence);
      connection.abort();
    }
  }

  private deliver(data: string): void {
    let event: OrbitEvent;
    try {
      event = JSON.parse(data) as OrbitEvent;
    } catch {
      return; // not an event of ours: nothing to re-read for it
    }
    for (const follower of this.followers) follower.event(event);
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.wake = done;
    });
  }
}

export const eventStream = new EventStream();
