import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
import { newestFirst } from '../../shared/infrastructure/newest-first.js';
import { ExecutionFilter, ExecutionRepository } from '../application/execution.repository.js';
import { Execution } from '../domain/execution.js';
import { ExecutionStatus, TRANSITIONS } from '../domain/execution-status.js';
import { ExecutionMapper } from './execution.mapper.js';
import { ExecutionOrmEntity } from './execution.orm-entity.js';

@Injectable()
export class TypeOrmExecutionRepository extends ExecutionRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async insert(execution: Execution): Promise<void> {
    await this.repo().insert(ExecutionMapper.toRow(execution));
  }

  async save(execution: Execution): Promise<void> {
    const { id, version, status, startedAt, finishedAt, exitCode, errorMessage, workerId } = execution.toProps();
    const result = await this.repo()
      .createQueryBuilder()
      .update()
      .set({
        status,
        startedAt,
        finishedAt,
        exitCode,
        errorMessage,
        workerId,
        // a lease belongs to a running execution only; a worker sets its own when it claims
        leaseExpiresAt: status === ExecutionStatus.RUNNING ? () => 'lease_expires_at' : null,
        version: version + 1,
      })
      .where('id = :id AND version = :version', { id, version })
      .execute();
    if (result.affected !== 1) {
      throw new StaleWriteError(`Execution ${id} was changed by someone else; read it again`);
    }
    execution.persisted();
  }

  async findById(id: string): Promise<Execution | null> {
    const row = await this.repo().findOneBy({ id });
    return row ? ExecutionMapper.toDomain(row) : null;
  }

  async list(filter: ExecutionFilter, page: PageRequest): Promise<Page<Execution>> {
    const query = this.repo().createQueryBuilder('e');
    if (filter.jobId) query.andWhere('e.job_id = :jobId', { jobId: filter.jobId });
    if (filter.status) query.andWhere('e.status = :status', { status: filter.status });
    const rows = await newestFirst(query, 'e', page);
    return toPage(rows.map(ExecutionMapper.toDomain), page.limit);
  }

  async findActiveByJob(jobId: string): Promise<Execution[]> {
    const query = this.repo()
      .createQueryBuilder('e')
      .where('e.job_id = :jobId AND e.status IN (:...active)', { jobId, active: TRANSITIONS.cancel.from });
    if (this.db.inTransaction()) query.setLock('pessimistic_write');
    const rows = await query.getMany();
    return rows.map(ExecutionMapper.toDomain);
  }

  async insertScheduled(execution: Execution): Promise<boolean> {
    const result = await this.repo()
      .createQueryBuilder()
      .insert()
      .values(ExecutionMapper.toRow(execution))
      .orIgnore()
      .returning('id')
      .execute();
    return (result.raw as unknown[]).length === 1;
  }

  async lockDue(now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.repo()
      .createQueryBuilder('e')
      .where('e.status = :queued AND e.due_at <= :now', { queued: ExecutionStatus.QUEUED, now })
      .orderBy('e.due_at', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    return rows.map(ExecutionMapper.toDomain);
  }

  async saveClaimed(executions: Execution[], leaseExpiresAt: Date): Promise<void> {
    for (const execution of executions) {
      const { id, version, status, startedAt, workerId } = execution.toProps();
      const result = await this.repo()
        .createQueryBuilder()
        .update()
        .set({ status, startedAt, workerId, leaseExpiresAt, version: version + 1 })
        .where('id = :id AND version = :version', { id, version })
        .execute();
      if (result.affected !== 1) throw new StaleWriteError(`Execution ${id} was changed while being claimed`);
      execution.persisted();
    }
  }

  async renewLeases(workerId: string, ids: string[], leaseExpiresAt: Date): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.rows<{ id: string }>(
      `UPDATE executions SET lease_expires_at = $1
         WHERE id = ANY($2::uuid[]) AND worker_id = $3 AND status = 'RUNNING' RETURNING id`,
      [leaseExpiresAt, ids, workerId],
    );
    return rows.map((r) => r.id);
  }

  lockExpiredLeases(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning('e.worker_id IS NOT NULL AND e.lease_expires_at < :now', now, limit);
  }

  lockTimedOutOutsideRuns(now: Date, limit: number): Promise<Execution[]> {
    return this.lockRunning(
      "e.worker_id IS NULL AND e.started_at + e.timeout_seconds * interval '1 second' <= :now",
      now,
      limit,
    );
  }

  async earliestDue(): Promise<Date | null> {
    const row = await this.repo()
      .createQueryBuilder('e')
      .select('min(e.due_at)', 'due')
      .where('e.status = :queued', { queued: ExecutionStatus.QUEUED })
      .getRawOne<{ due: Date | null }>();
    return row?.due ? new Date(row.due) : null;
  }

  private async lockRunning(condition: string, now: Date, limit: number): Promise<Execution[]> {
    const rows = await this.repo()
      .createQueryBuilder('e')
      .where(`e.status = :running AND ${condition}`, { running: ExecutionStatus.RUNNING, now })
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    return rows.map(ExecutionMapper.toDomain);
  }

  private repo() {
    return this.db.manager().getRepository(ExecutionOrmEntity);
  }
}
