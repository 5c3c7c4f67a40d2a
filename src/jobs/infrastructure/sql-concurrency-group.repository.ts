import { Injectable } from '@nestjs/common';
import { ConflictError, StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database, uniqueViolation } from '../../shared/infrastructure/database.js';
import { ConcurrencyGroupRepository } from '../application/concurrency-group.repository.js';
import { ConcurrencyGroup, ConcurrencyGroupProps } from '../domain/concurrency-group.js';
import { CONCURRENCY_GROUP_COLUMNS } from './concurrency-group.columns.js';

const COLUMNS = CONCURRENCY_GROUP_COLUMNS.select();
const INSERT = CONCURRENCY_GROUP_COLUMNS.insert();
/** What an update writes, with the version moving on by one. */
const UPDATED = ['name', 'team', 'limit', 'updatedAt'] as const;
const UPDATE = `UPDATE concurrency_groups SET ${CONCURRENCY_GROUP_COLUMNS.assignments(UPDATED, 3)}, version = version + 1
  WHERE id = $1 AND version = $2 RETURNING id`;

@Injectable()
export class SqlConcurrencyGroupRepository extends ConcurrencyGroupRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(group: ConcurrencyGroup): Promise<void> {
    const g = group.toProps();
    await this.guardName(g.name, () => this.db.rows(INSERT, CONCURRENCY_GROUP_COLUMNS.params(g)));
  }

  async update(group: ConcurrencyGroup): Promise<void> {
    const g = group.toProps();
    const rows = await this.guardName(g.name, () =>
      this.db.rows(UPDATE, [g.id, g.version, ...CONCURRENCY_GROUP_COLUMNS.params(g, UPDATED)]),
    );
    if (rows.length !== 1)
      throw new StaleWriteError(`Concurrency group ${g.id} was changed by someone else; read it again`);
    group.persisted();
  }

  async remove(group: ConcurrencyGroup): Promise<void> {
    const rows = await this.db.rows(`DELETE FROM concurrency_groups WHERE id = $1 AND version = $2 RETURNING id`, [
      group.id,
      group.version,
    ]);
    if (rows.length !== 1)
      throw new StaleWriteError(`Concurrency group ${group.id} was changed by someone else; read it again`);
  }

  async findById(id: string): Promise<ConcurrencyGroup | null> {
    const lock = this.db.inTransaction() ? ' FOR UPDATE' : '';
    const [row] = await this.db.rows<ConcurrencyGroupProps>(
      `SELECT ${COLUMNS} FROM concurrency_groups WHERE id = $1${lock}`,
      [id],
    );
    return row ? ConcurrencyGroup.restore(row) : null;
  }

  async all(teams?: readonly string[]): Promise<ConcurrencyGroup[]> {
    const rows = await this.db.rows<ConcurrencyGroupProps>(
      `SELECT ${COLUMNS} FROM concurrency_groups WHERE $1::text[] IS NULL OR team = ANY ($1::text[]) ORDER BY name`,
      [teams ?? null],
    );
    return rows.map((row) => ConcurrencyGroup.restore(row));
  }

  async exists(name: string, team: string): Promise<boolean> {
    const share = this.db.inTransaction() ? ' FOR SHARE' : '';
    const rows = await this.db.rows(`SELECT 1 FROM concurrency_groups WHERE name = $1 AND team = $2${share}`, [
      name,
      team,
    ]);
    return rows.length === 1;
  }

  async jobsNaming(name: string): Promise<string[]> {
    const rows = await this.db.rows<{ name: string }>(
      `SELECT name FROM jobs WHERE concurrency_group = $1 AND deleted_at IS NULL ORDER BY name LIMIT 20`,
      [name],
    );
    return rows.map((row) => row.name);
  }

  private async guardName<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (uniqueViolation(error) === 'concurrency_groups_name_key') {
        throw new ConflictError(`A concurrency group named '${name}' exists already`, 'name');
      }
      throw error;
    }
  }
}
