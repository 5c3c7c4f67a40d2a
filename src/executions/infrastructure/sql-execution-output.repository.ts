import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import {
  ExecutionOutput,
  ExecutionOutputRepository,
  OutputSnapshot,
} from '../application/execution-output.repository.js';

/** PostgreSQL text cannot hold NUL bytes; a command may print them. */
const withoutNul = (text: string) => text.replaceAll('\u0000', '');

const isEmpty = ({ output }: OutputSnapshot) => output.stdout === '' && output.stderr === '' && !output.truncated;

@Injectable()
export class SqlExecutionOutputRepository extends ExecutionOutputRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async saveAll(snapshots: OutputSnapshot[], now: Date): Promise<void> {
    const stored = snapshots.filter((snapshot) => !isEmpty(snapshot));
    if (stored.length === 0) return;
    // the output's day is its run's (see HistoryDays): read from the run, which a missing run lacks,
    // so that its output is refused as by a foreign key
    await this.db.rows(
      `INSERT INTO execution_outputs (execution_id, created_at, stdout, stderr, truncated, updated_at)
       SELECT s.id, coalesce(e.created_at, 'infinity'), s.stdout, s.stderr, s.truncated, $5
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::boolean[]) AS s(id, stdout, stderr, truncated)
         LEFT JOIN executions e ON e.id = s.id
       ON CONFLICT (execution_id, created_at) DO UPDATE
       SET stdout = EXCLUDED.stdout, stderr = EXCLUDED.stderr, truncated = EXCLUDED.truncated,
           updated_at = EXCLUDED.updated_at
       WHERE execution_outputs.updated_at <= EXCLUDED.updated_at`,
      [
        stored.map((s) => s.executionId),
        stored.map((s) => withoutNul(s.output.stdout)),
        stored.map((s) => withoutNul(s.output.stderr)),
        stored.map((s) => s.output.truncated),
        now,
      ],
    );
  }

  async find(executionId: string): Promise<ExecutionOutput | null> {
    const rows = await this.db.rows<ExecutionOutput>(
      'SELECT stdout, stderr, truncated FROM execution_outputs WHERE execution_id = $1',
      [executionId],
    );
    return rows[0] ?? null;
  }
}
