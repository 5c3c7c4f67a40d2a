import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { WorkerInfo, WorkerRegistry } from '../application/worker-registry.js';
import { WORKER_COLUMNS } from './worker.columns.js';

const INSERT = WORKER_COLUMNS.insert();

@Injectable()
export class SqlWorkerRegistry extends WorkerRegistry {
  constructor(private readonly db: Database) {
    super();
  }

  async register(w: WorkerInfo): Promise<void> {
    await this.db.rows(INSERT, WORKER_COLUMNS.params(w));
  }

  async beat(id: string, running: number, now: Date, loadAverage: number): Promise<void> {
    await this.db.rows(`UPDATE workers SET last_heartbeat_at = $2, running = $3, load_average = $4 WHERE id = $1`, [
      id,
      now,
      running,
      loadAverage,
    ]);
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
    return this.db.rows<WorkerInfo>(
      `SELECT ${WORKER_COLUMNS.select()} FROM workers
        WHERE stopped_at IS NULL AND last_heartbeat_at > $1 ORDER BY last_heartbeat_at DESC`,
      [since],
    );
  }
}
