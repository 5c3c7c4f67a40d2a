import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ListenConnection } from '../../shared/infrastructure/listen-connection.js';
import { EventWakeups } from '../application/event-wakeups.js';

/** The channel the event triggers notify (see the Events migration). */
export const EVENTS_CHANNEL = 'orbit_events';

/**
 * A session notifies a run's change of status at most once per 100 ms (the EventWakeupsPerSession
 * migration): the followers are woken again this long after the last notice, so that a change
 * whose notice was held back is read then at the latest (50 ms for its transaction to commit).
 */
const TRAILING_WAKE_MS = 150;

/**
 * One connection per process that LISTENs on the events channel, opened when the first follower
 * waits (a node that nobody follows opens none). Each notice wakes every follower, and again
 * TRAILING_WAKE_MS after the last one. Each time it listens again after a drop it wakes every
 * follower, so that they read what was written meanwhile.
 */
@Injectable()
export class PgEventListener extends EventWakeups implements OnApplicationShutdown {
  private readonly connection: ListenConnection;
  private started = false;
  private closed = false;
  private wakes = 0;
  private readonly waiting = new Set<() => void>();
  private trailing: NodeJS.Timeout | undefined;

  constructor(db: Database) {
    super();
    this.connection = new ListenConnection(
      db.url,
      [EVENTS_CHANNEL],
      'orbit-events-listen',
      new Logger(PgEventListener.name),
      {
        notified: () => {
          this.wakeAll();
          clearTimeout(this.trailing);
          this.trailing = setTimeout(() => this.wakeAll(), TRAILING_WAKE_MS).unref();
        },
        listening: () => this.wakeAll(),
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
    clearTimeout(this.trailing);
    this.wakeAll();
    await this.connection.close();
  }

  private wakeAll(): void {
    this.wakes++;
    for (const done of [...this.waiting]) done();
  }
}
