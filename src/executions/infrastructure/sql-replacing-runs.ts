import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ReplacingRuns } from '../application/cancellations.js';

/** One range of executions_job_newest_idx. */
const SCHEDULED_BETWEEN = `SELECT id FROM executions
  WHERE job_id = $1 AND created_at BETWEEN $3 AND $4 AND id <> $2 AND trigger = 'SCHEDULE'
  ORDER BY created_at DESC, id DESC LIMIT 1`;

@Injectable()
export class SqlReplacingRuns extends ReplacingRuns {
  constructor(private readonly db: Database) {
    super();
  }

  async scheduledBetween(jobId: string, exceptId: string, from: Date, to: Date): Promise<string | null> {
    const [row] = await this.db.rows<{ id: string }>(SCHEDULED_BETWEEN, [jobId, exceptId, from, to]);
    return row?.id ?? null;
  }
}
