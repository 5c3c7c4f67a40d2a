import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { WorkerInfo, WorkerRegistry } from '../application/worker-registry.js';

interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  concurrency: number;
  started_at: Date;
  last_heartbeat_at: Date;
  running: number;
  labels: Record<string, string>;
  draining: boolean;
}

@Injectable()
export class SqlWorkerRegistry extends WorkerRegistry {
  constructor(private readonly db: Database) {
    super();
  }

  async register(w: WorkerInfo): Promise<void> {
    await this.db.rows(
      `INSERT INTO workers (id, host, pid, version, concurrency, started_at, last_heartbeat_at, running, labels, draining)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [w.id, w.host, w.pid, w.version, w.concurrency, w.startedAt, w.lastHeartbeatAt, w.running, w.labels, w.draining],
    );
  }

  async beat(id: string, running: number, now: Date): Promise<void> {
    await this.db.rows(`UPDATE workers SET last_heartbeat_at = $2, running = $3 WHERE id = $1`, [id, now, running]);
  }

  async stopped(id: string, now: Date): Promise<void> {
    await this.db.rows(`UPDATE workers SET stopped_at = $2, running = 0 WHERE id = $1`, [id, now]);
  }

  async setDraining(id: string, draining: boolean): Promise<boolean> {
    const rows = await this.db.rows(
      `UPDATE workers SET draining = $2 WHERE id = $1 AND stopped_at IS NULL RETURNING id`,
      [id, draining],
    );
    return rows.length === 1;
  }

  async recent(since: Date): Promise<WorkerInfo[]> {
    const rows = await this.db.rows<WorkerRow>(
      `SELECT * FROM workers WHERE stopped_at IS NULL AND last_heartbeat_at > $1 ORDER BY last_heartbeat_at DESC`,
      [since],
    );
    return rows.map((r) => ({
      id: r.id,
      host: r.host,
      pid: r.pid,
      version: r.version,
      concurrency: r.concurrency,
      startedAt: r.started_at,
      lastHeartbeatAt: r.last_heartbeat_at,
      running: r.running,
      labels: r.labels,
      draining: r.draining,
    }));
  }
}
