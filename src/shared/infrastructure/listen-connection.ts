import { Logger } from '@nestjs/common';
import pg from 'pg';

/** Short: while a node does not listen, whoever it would wake waits for a poll. */
const MAX_RECONNECT_DELAY_MS = 1000;

export interface ListenHandlers {
  notified(channel: string, payload: string | undefined): void;
  /** Each time the connection listens, the first time too: notifications sent while it did not are lost. */
  listening(restored: boolean): void;
}

/**
 * A dedicated PostgreSQL connection that LISTENs on some channels, and reconnects with backoff
 * whenever it drops (PostgreSQL restarted, the network broke) until it is closed.
 */
export class ListenConnection {
  private client: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channels: readonly string[],
    private readonly name: string,
    private readonly logger: Logger,
    private readonly handlers: ListenHandlers,
  ) {}

  /** Connects; resolves after the first attempt, whatever its outcome (a failure retries by itself). */
  open(): Promise<void> {
    return this.connect(0);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(attempt: number): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: this.name });
    client.on('notification', (message) => this.handlers.notified(message.channel, message.payload));
    client.on('error', (error) => this.logger.warn(`LISTEN connection error: ${error.message}`));
    client.on('end', () => {
      if (this.client === client) this.reconnect(0);
    });
    try {
      await client.connect();
      await client.query(this.channels.map((channel) => `LISTEN ${channel}`).join('; '));
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      if (attempt > 0) this.logger.log('LISTEN connection restored');
      this.handlers.listening(attempt > 0);
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
}
