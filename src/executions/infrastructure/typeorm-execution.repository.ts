import { Injectable } from '@nestjs/common';
import { Page, PageRequest, toPage } from '../../shared/application/page.js';
import { StaleWriteError } from '../../shared/domain/domain-errors.js';
import { Database } from '../../shared/infrastructure/database.js';
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
    if (page.cursor) {
      query.andWhere('(e.created_at, e.id) < (:createdAt, :id)', page.cursor);
    }
    const rows = await query
      .orderBy('e.created_at', 'DESC')
      .addOrderBy('e.id', 'DESC')
      .limit(page.limit + 1)
      .getMany();
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

  private repo() {
    return this.db.manager().getRepository(ExecutionOrmEntity);
  }
}
