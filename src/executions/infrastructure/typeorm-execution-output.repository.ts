import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ExecutionOutput, ExecutionOutputRepository } from '../application/execution-output.repository.js';

/** PostgreSQL text cannot hold NUL bytes; a command may print them. */
const withoutNul = (text: string) => text.replaceAll('\u0000', '');

@Injectable()
export class TypeOrmExecutionOutputRepository extends ExecutionOutputRepository {
  constructor(private readonly db: Database) {
    super();
  }

  async save(executionId: string, output: ExecutionOutput, now: Date): Promise<void> {
    await this.db.rows(
      `INSERT INTO execution_outputs (execution_id, stdout, stderr, truncated, updated_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (execution_id) DO UPDATE
       SET stdout = EXCLUDED.stdout, stderr = EXCLUDED.stderr, truncated = EXCLUDED.truncated,
           updated_at = EXCLUDED.updated_at`,
      [executionId, withoutNul(output.stdout), withoutNul(output.stderr), output.truncated, now],
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
