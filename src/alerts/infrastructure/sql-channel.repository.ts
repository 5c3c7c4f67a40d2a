import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { ConflictError, StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database, uniqueViolation } from '../../shared/infrastructure/database.js';
import type { AlertEvent } from '../../jobs/domain/job-alerts.js';
import { ChannelRepository } from '../application/channel.repository.js';
import { Channel, ChannelSettings } from '../domain/channel.js';

const COLUMNS = `id, name, settings, all_jobs_on AS "allJobsOn", created_at AS "createdAt", updated_at AS "updatedAt", version`;

interface ChannelRow {
  id: string;
  name: string;
  settings: ChannelSettings;
  allJobsOn: AlertEvent[] | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

const toChannel = (row: ChannelRow) => Channel.restore(row);

@Injectable()
export class SqlChannelRepository extends ChannelRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(channel: Channel): Promise<void> {
    const c = channel.toProps();
    await this.guardName(channel, () =>
      this.db.rows(
        `INSERT INTO channels (id, name, type, settings, all_jobs_on, created_at, updated_at, version)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [c.id, c.name, c.settings.type, c.settings, c.allJobsOn, c.createdAt, c.updatedAt, c.version],
      ),
    );
  }

  async update(channel: Channel): Promise<void> {
    const c = channel.toProps();
    const rows = await this.guardName(channel, () =>
      this.db.rows(
        `UPDATE channels SET name = $3, settings = $4, all_jobs_on = $5, updated_at = $6, version = version + 1
          WHERE id = $1 AND version = $2 RETURNING id`,
        [c.id, c.version, c.name, c.settings, c.allJobsOn, c.updatedAt],
      ),
    );
    if (rows.length !== 1) throw new StaleWriteError(`Channel ${c.id} was changed by someone else; read it again`);
    channel.persisted();
  }

  async remove(channel: Channel): Promise<void> {
    const rows = await this.db.rows(`DELETE FROM channels WHERE id = $1 AND version = $2 RETURNING id`, [
      channel.id,
      channel.version,
    ]);
    if (rows.length !== 1)
      throw new StaleWriteError(`Channel ${channel.id} was changed by someone else; read it again`);
  }

  async findById(id: string, lock = false): Promise<Channel | null> {
    const forUpdate = lock && this.db.inTransaction() ? ' FOR UPDATE' : '';
    const [row] = await this.db.rows<ChannelRow>(`SELECT ${COLUMNS} FROM channels WHERE id = $1${forUpdate}`, [id]);
    return row ? toChannel(row) : null;
  }

  async list(page: PageRequest): Promise<Page<Channel>> {
    const rows = await this.db.rows<ChannelRow>(
      `SELECT ${COLUMNS} FROM channels
        WHERE $1::timestamptz IS NULL OR (created_at, id) < ($1, $2::uuid)
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [page.cursor?.createdAt ?? null, page.cursor?.id ?? null, page.limit + 1],
    );
    return toPage(rows.map(toChannel), page.limit);
  }

  async all(): Promise<Channel[]> {
    return (await this.db.rows<ChannelRow>(`SELECT ${COLUMNS} FROM channels ORDER BY name`)).map(toChannel);
  }

  async any(): Promise<boolean> {
    return (await this.db.rows(`SELECT 1 FROM channels LIMIT 1`)).length > 0;
  }

  async missing(names: readonly string[]): Promise<string[]> {
    const share = this.db.inTransaction() ? ' FOR SHARE' : '';
    const rows = await this.db.rows<{ name: string }>(
      `SELECT name FROM channels WHERE name = ANY ($1::text[])${share}`,
      [names],
    );
    const found = new Set(rows.map((row) => row.name));
    return names.filter((name) => !found.has(name));
  }

  private async guardName<T>(channel: Channel, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (uniqueViolation(error) === 'channels_name_key') {
        throw new ConflictError(`A channel named '${channel.name}' already exists`, 'name');
      }
      throw error;
    }
  }
}
