import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionRunner } from '../application/transaction-runner.js';

const current = new AsyncLocalStorage<EntityManager>();

/**
 * Gives repositories the entity manager of the transaction they run in, if any. Nested
 * `run` calls join the outer transaction.
 */
@Injectable()
export class Database extends TransactionRunner {
  constructor(readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (current.getStore()) return work();
    return this.dataSource.transaction((manager) => current.run(manager, work));
  }

  manager(): EntityManager {
    return current.getStore() ?? this.dataSource.manager;
  }

  /**
   * Raw SQL that answers rows, alike for SELECT and for UPDATE/DELETE … RETURNING (for which
   * TypeORM's plain `query` answers `[rows, count]` instead).
   */
  async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const joined = current.getStore()?.queryRunner;
    const runner = joined ?? this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return result.records as T[];
    } finally {
      if (!joined) await runner.release();
    }
  }

  inTransaction(): boolean {
    return current.getStore() !== undefined;
  }
}

/** PostgreSQL's SQLSTATE of a unique violation, and the constraint it names. */
export function uniqueViolation(error: unknown): string | null {
  const driverError = (error as { driverError?: { code?: string; constraint?: string } })?.driverError ?? error;
  const { code, constraint } = (driverError ?? {}) as { code?: string; constraint?: string };
  return code === '23505' ? (constraint ?? '') : null;
}
