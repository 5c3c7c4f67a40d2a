import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { Database } from '../../shared/infrastructure/database.js';
import { SchedulerService } from '../application/scheduler.service.js';
import { WorkerService } from '../application/worker.service.js';

export const CHANNELS = {
  queued: 'orbit_executions_queued',
  cancelled: 'orbit_execution_cancelled',
  jobsChanged: 'orbit_jobs_changed',
} as const;

/** Short: every second without LISTEN, claims and fires wait for the poll. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * One dedicated connection that LISTENs for the database triggers' notifications and wakes
 * the worker and the scheduler. When the connection drops (PostgreSQL restarted), it
 * reconnects with backoff and wakes both, since notifications sent meanwhile are lost.
 */
@Injectable()
export class PgNotificationListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PgNotificationListener.name);
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly worker: WorkerService,
    private readonly scheduler: SchedulerService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.connect(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(attempt: number): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: (this.db.dataSource.options as { url: string }).url,
      application_name: 'orbit-listen',
    });
    client.on('notification', (message) => this.dispatch(message.channel, message.payload));
    client.on('error', (error) => this.logger.warn(`LISTEN connection error: ${error.message}`));
    client.on('end', () => {
      if (this.client === client) this.reconnect(0);
    });
    try {
      await client.connect();
      await client.query(
        Object.values(CHANNELS)
          .map((c) => `LISTEN ${c}`)
          .join('; '),
      );
      this.client = client;
      if (attempt > 0) this.logger.log('LISTEN connection restored');
      this.worker.wake();
      this.scheduler.wake();
    } catch (error) {
      await client.end().catch(() => undefined);
      this.logger.warn(`LISTEN connection failed (${String(error)}); retrying`);
      this.reconnect(attempt + 1);
    }
  }

  private reconnect(attempt: number): void {
    this.client = undefined;
    if (this.closed) return;
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 250 * 2 ** attempt);
    this.reconnectTimer = setTimeout(() => void this.connect(attempt + 1), delay);
  }

  private dispatch(channel: string, payload: string | undefined): void {
    if (channel === CHANNELS.queued) this.worker.wake();
    else if (channel === CHANNELS.jobsChanged) this.scheduler.wake();
    else if (channel === CHANNELS.cancelled && payload) this.worker.cancelled(payload);
  }
}
