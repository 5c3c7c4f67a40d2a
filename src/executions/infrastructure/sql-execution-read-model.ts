import { Injectable } from '@nestjs/common';
import { encodeCursor, Page, PageRequest } from '../../shared/application/page.js';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionFilter, ExecutionReadModel } from '../application/execution-read-model.js';

/** `toISOString()` of a timestamp, in SQL: both truncate to milliseconds. */
const iso = (column: string) => `to_char(e.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * An execution row `e` as ExecutionResponse, field for field and in its order. row_to_json
 * writes it compactly; the lateral projection is flattened into the query, so ORDER BY and
 * LIMIT keep their index plan.
 */
const VIEW = `LATERAL (SELECT e.id, e.job_id AS "jobId", e.command, e.max_retries AS "maxRetries",
  e.timeout_seconds AS "timeoutSeconds", e.status, e.attempt, e.trigger, ${iso('scheduled_for')} AS "scheduledFor",
  e.retry_of AS "retryOf", ${iso('due_at')} AS "dueAt", ${iso('created_at')} AS "createdAt",
  ${iso('started_at')} AS "startedAt", ${iso('finished_at')} AS "finishedAt", e.exit_code AS "exitCode",
  e.error_message AS "errorMessage", e.worker_id AS "workerId") v`;

interface ViewRow {
  json: string;
  /** As in the JSON: a cursor needs it for the last row only, so no row pays for a Date. */
  createdAt: string;
  id: string;
}

@Injectable()
export class SqlExecutionReadModel extends ExecutionReadModel {
  constructor(private readonly db: Database) {
    super();
  }

  async findJson(id: string): Promise<string | null> {
    const rows = await this.db.rows<ViewRow>(
      `SELECT row_to_json(v)::text AS json FROM executions e, ${VIEW} WHERE e.id = $1`,
      [id],
    );
    return rows[0]?.json ?? null;
  }

  /** Each filter combination is its own statement, so each keeps its own index plan. */
  async listJson(filter: ExecutionFilter, page: PageRequest): Promise<Page<string>> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filter.jobId) conditions.push(`e.job_id = ${param(filter.jobId)}`);
    if (filter.status) conditions.push(`e.status = ${param(filter.status)}`);
    if (page.cursor) {
      conditions.push(`(e.created_at, e.id) < (${param(page.cursor.createdAt)}, ${param(page.cursor.id)})`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = await this.db.rows<ViewRow>(
      `SELECT row_to_json(v)::text AS json, v."createdAt", e.id FROM executions e, ${VIEW} ${where}
       ORDER BY e.created_at DESC, e.id DESC LIMIT ${param(page.limit + 1)}`,
      params,
    );
    const items = rows.slice(0, page.limit);
    const last = rows.length > page.limit ? items[items.length - 1] : undefined;
    return {
      items: items.map((row) => row.json),
      nextCursor: last ? encodeCursor({ createdAt: new Date(last.createdAt), id: last.id }) : null,
    };
  }
}
