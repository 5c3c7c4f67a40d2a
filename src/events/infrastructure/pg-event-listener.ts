import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { Database } from '../../shared/infrastructure/database.js';
import { EventWakeups } from '../application/event-wakeups.js';

/** The channel the event triggers notify (see the Events migration). */
export const EVENTS_CHANNEL = 'orbit_events';

const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * One dedicated connection per process that LISTENs on the events channel, opened when the
 * first follower waits (a node that nobody follows opens none). When it drops it reconnects
 * with backoff and wakes every follower, so that they read what was written meanwhile.
 */
@Injectable()
export class PgEventListener extends EventWakeups implements OnApplicationShutdown {
  private readonly logger = new Logger(PgEventListener.name);
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private wakes = 0;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly db: Database) {
    super();
  }

  mark(): number {
    if (!this.started && !this.closed) {
      this.started = true;
      void this.connect(0);
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
    clearTimeout(this.reconnectTimer);
    this.wakeAll();
    await this.client?.end().catch(() => undefined);
  }

  private wakeAll(): void {
    this.wakes++;
    for (const done of [...this.waiting]) done();
  }

  private async connect(attempt: number): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: (this.db.dataSource.options as { url: string }).url,
      application_name: 'orbit-events-listen',
    });
    client.on('notification', () => this.wakeAll());
    client.on('error', (error) => this.logger.warn(`Events LISTEN connection error: ${error.message}`));
    client.on('end', () => {
      if (this.client === client) this.reconnect(0);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      if (attempt > 0) this.logger.log('Events LISTEN connection restored');
      this.wakeAll(); // what was written while it was not listening
    } catch (error) {
      await client.end().catch(() => undefined);
      this.logger.warn(`Events LISTEN connection failed (${String(error)}); retrying`);
      this.reconnect(attempt + 1);
    }
  }

  private reconnect(attempt: number): void {
    this.client = undefined;
    if (this.closed) return;
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 250 * 2 ** attempt);
    this.reconnectTimer = setTimeout(() => void this.connect(attempt + 1), delay);
  }
}
