import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ReplacingRuns } from '../application/cancellations.js';
import { newestRunsOfJob } from './runs-of-job.js';

/** One range of each index of the job's runs. */
const SCHEDULED_BETWEEN = `SELECT e.id FROM (${newestRunsOfJob(
  'e.id, e.created_at',
  `e.job_id = $1 AND e.created_at BETWEEN $3 AND $4 AND e.id <> $2 AND e.trigger = 'SCHEDULE'`,
  1,
)}) AS e`;

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
