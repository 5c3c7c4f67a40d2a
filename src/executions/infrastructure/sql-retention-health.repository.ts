import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { RetentionHealthRepository } from '../application/retention-health.repository.js';
import type { RetentionHealth } from '../domain/retention-health.js';
import { RETENTION_HEALTH_COLUMNS } from './retention-health.columns.js';

const HEALTH = RETENTION_HEALTH_COLUMNS.fields.filter((field) => field !== 'updatedAt');
const READ = `SELECT ${RETENTION_HEALTH_COLUMNS.select(HEALTH)} FROM retention_health`;
const LOCK = `${READ} FOR UPDATE`;
const SAVE = `UPDATE retention_health SET ${RETENTION_HEALTH_COLUMNS.assignments(RETENTION_HEALTH_COLUMNS.changing())}`;

@Injectable()
export class SqlRetentionHealthRepository extends RetentionHealthRepository {
  constructor(private readonly db: Database) {
    super();
  }

  lock(): Promise<RetentionHealth> {
    return this.one(LOCK);
  }

  async save(health: RetentionHealth, at: Date): Promise<void> {
    const row = { ...health, updatedAt: at };
    await this.db.rows(SAVE, RETENTION_HEALTH_COLUMNS.params(row, RETENTION_HEALTH_COLUMNS.changing()));
  }

  read(): Promise<RetentionHealth> {
    return this.one(READ);
  }

  /** The migration writes the row, and nothing deletes it. */
  private async one(sql: string): Promise<RetentionHealth> {
    const [row] = await this.db.rows<RetentionHealth>(sql);
    if (!row) throw new Error('retention_health has no row: the RetentionHealth migration writes it');
    return row;
  }
}
