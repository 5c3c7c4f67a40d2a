import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { TransactionRunner } from '../application/transaction-runner.js';
import { pgClient, pgPool } from './typeorm-pg.js';

const current = new AsyncLocalStorage<EntityManager>();

/** How many times a unit of work that lost its row to a partition move runs at most. */
const MOVED_ATTEMPTS = 5;

/**
 * Runs repositories' SQL in the transaction they run in, if any (TypeORM holds the connection
 * and the transaction; nothing else of it is used). Nested `run` calls join the outer transaction.
 *
 * A run that ends moves from `executions_active` to `executions_history`. A statement that waited
 * for that row's lock then fails with 40001 instead of seeing the row's new version, as it would
 * in one table; the work is tried again from the start (it rolled back whole), and then sees the
 * run where it is now: ended, which the domain answers as it always did.
 */
@Injectable()
export class Database extends TransactionRunner {
  constructor(readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    if (current.getStore()) return work();
    return retryingMoves(() => this.dataSource.transaction((manager) => current.run(manager, work)));
  }

  /**
   * Raw SQL that answers rows, alike for SELECT and for UPDATE/DELETE … RETURNING (for which
   * TypeORM's plain `query` answers `[rows, count]` instead). It goes to the pg connection of
   * the transaction, or to the pool, directly: the hot paths skip TypeORM's query runners.
   * Errors are pg's own (`code`, `constraint`). Each statement is prepared once per connection
   * under a name derived from its text, so PostgreSQL parses and plans it once.
   */
  async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const query = { name: statementName(sql), text: sql, values: params };
    // outside a transaction, the statement borrows a connection of the pool for itself alone
    const joined = current.getStore()?.queryRunner;
    if (joined) return (await (await pgClient(joined)).query<T & pg.QueryResultRow>(query)).rows;
    const pool = pgPool(this.dataSource);
    return retryingMoves(async () => (await pool.query<T & pg.QueryResultRow>(query)).rows);
  }

  /** The connection string, for a connection of its own (LISTEN). */
  get url(): string {
    return (this.dataSource.options as { url: string }).url;
  }

  inTransaction(): boolean {
    return current.getStore() !== undefined;
  }
}

const statementNames = new Map<string, string>();

/** A prepared statement's name: the same for the same text, on every connection. */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `orbit_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    statementNames.set(sql, name);
  }
  return name;
}

async function retryingMoves<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= MOVED_ATTEMPTS || pgError(error).code !== '40001') throw error;
    }
  }
}

/** PostgreSQL's error under TypeORM's wrapper, or pg's own: its SQLSTATE and the constraint it names. */
function pgError(error: unknown): { code?: string; constraint?: string } {
  const driverError = (error as { driverError?: unknown })?.driverError ?? error;
  return driverError ?? {};
}

/** PostgreSQL's SQLSTATE of a unique violation, and the constraint it names. */
export function uniqueViolation(error: unknown): string | null {
  const { code, constraint } = pgError(error);
  return code === '23505' ? (constraint ?? '') : null;
}
