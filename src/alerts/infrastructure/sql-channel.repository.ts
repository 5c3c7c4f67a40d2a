import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { ConflictError, StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database, uniqueViolation } from '../../shared/infrastructure/database.js';
import { ChannelRepository } from '../application/channel.repository.js';
import { Channel, ChannelProps } from '../domain/channel.js';
import { CHANNEL_COLUMNS } from './channel.columns.js';

const COLUMNS = CHANNEL_COLUMNS.select();
const INSERT = `INSERT INTO channels (${CHANNEL_COLUMNS.names()}, type)
  VALUES (${CHANNEL_COLUMNS.placeholders()}, $${CHANNEL_COLUMNS.fields.length + 1})`;
/** What an update writes: the settings and the team, with the version moving on by one. */
const UPDATED = ['name', 'team', 'settings', 'allJobsOn', 'updatedAt'] as const;
const UPDATE = `UPDATE channels SET ${CHANNEL_COLUMNS.assignments(UPDATED, 3)}, version = version + 1
  WHERE id = $1 AND version = $2 RETURNING id`;

const toChannel = (row: ChannelProps) => Channel.restore(row);

@Injectable()
export class SqlChannelRepository extends ChannelRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(channel: Channel): Promise<void> {
    const c = channel.toProps();
    await this.guardName(channel, () => this.db.rows(INSERT, [...CHANNEL_COLUMNS.params(c), c.settings.type]));
  }

  async update(channel: Channel): Promise<void> {
    const c = channel.toProps();
    const rows = await this.guardName(channel, () =>
      this.db.rows(UPDATE, [c.id, c.version, ...CHANNEL_COLUMNS.params(c, UPDATED)]),
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
    const [row] = await this.db.rows<ChannelProps>(`SELECT ${COLUMNS} FROM channels WHERE id = $1${forUpdate}`, [id]);
    return row ? toChannel(row) : null;
  }

  async list(page: PageRequest, teams?: readonly string[]): Promise<Page<Channel>> {
    const rows = await this.db.rows<ChannelProps>(
      `SELECT ${COLUMNS} FROM channels
        WHERE ($1::timestamptz IS NULL OR (created_at, id) < ($1, $2::uuid))
          AND ($4::text[] IS NULL OR team = ANY ($4::text[]))
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      [page.cursor?.createdAt ?? null, page.cursor?.id ?? null, page.limit + 1, teams ?? null],
    );
    return toPage(rows.map(toChannel), page.limit);
  }

  async all(): Promise<Channel[]> {
    return (await this.db.rows<ChannelProps>(`SELECT ${COLUMNS} FROM channels ORDER BY name`)).map(toChannel);
  }

  async any(): Promise<boolean> {
    if (this.db.inTransaction()) await this.db.rows('LOCK TABLE channels IN SHARE MODE');
    return (await this.db.rows(`SELECT 1 FROM channels LIMIT 1`)).length > 0;
  }

  async missing(names: readonly string[], team: string): Promise<string[]> {
    const share = this.db.inTransaction() ? ' FOR SHARE' : '';
    const rows = await this.db.rows<{ name: string }>(
      `SELECT name FROM channels WHERE name = ANY ($1::text[]) AND team = $2${share}`,
      [names, team],
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
