import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ListenConnection } from '../../shared/infrastructure/listen-connection.js';
import { EventWakeups } from '../application/event-wakeups.js';

/** The channel the event triggers notify (see the Events migration). */
export const EVENTS_CHANNEL = 'orbit_events';

/**
 * One connection per process that LISTENs on the events channel, opened when the first follower
 * waits (a node that nobody follows opens none). Each time it listens again after a drop it
 * wakes every follower, so that they read what was written meanwhile.
 */
@Injectable()
export class PgEventListener extends EventWakeups implements OnApplicationShutdown {
  private readonly connection: ListenConnection;
  private started = false;
  private closed = false;
  private wakes = 0;
  private readonly waiting = new Set<() => void>();

  constructor(db: Database) {
    super();
    const wakeAll = () => this.wakeAll();
    this.connection = new ListenConnection(
      db.url,
      [EVENTS_CHANNEL],
      'orbit-events-listen',
      new Logger(PgEventListener.name),
      {
        notified: wakeAll,
        listening: wakeAll,
      },
    );
  }

  mark(): number {
    if (!this.started && !this.closed) {
      this.started = true;
      void this.connection.open();
    }
    return this.wakes;
  }

  waitAfter(mark: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.wakes > mark || this.closed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.waiting.add(done);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.wakeAll();
    await this.connection.close();
  }

  private wakeAll(): void {
    this.wakes++;
    for (const done of [...this.waiting]) done();
  }
}
