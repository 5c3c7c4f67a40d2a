import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { EventRetention } from '../application/event-retention.js';

/**
 * One batch, one statement, through events_job_changes_idx; rows another transaction holds are
 * skipped. The delete names the instant too, so that it reads only the days before it.
 */
const PRUNE_JOB_EVENTS = `
  DELETE FROM event_log WHERE seq = ANY (ARRAY(
    SELECT seq FROM event_log WHERE execution_id IS NULL AND at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED))
    AND at < $1
  RETURNING seq`;

@Injectable()
export class SqlEventRetention extends EventRetention {
  constructor(private readonly db: Database) {
    super();
  }

  async pruneJobEvents(olderThan: Date, batchSize: number): Promise<number> {
    if (batchSize <= 0) return 0;
    return (await this.db.rows(PRUNE_JOB_EVENTS, [olderThan, Math.floor(batchSize)])).length;
  }
}
