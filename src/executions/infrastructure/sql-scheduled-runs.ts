import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ScheduledRun, ScheduledRuns } from '../application/scheduled-runs.js';

@Injectable()
export class SqlScheduledRuns extends ScheduledRuns {
  constructor(private readonly db: Database) {
    super();
  }

  /** Probes of the ledger of slots (one run per job, slot and pinned worker), for SCHEDULE executions only. */
  async forSlots(jobId: string, slots: readonly Date[]): Promise<ScheduledRun[]> {
    if (slots.length === 0) return [];
    return this.db.rows<ScheduledRun>(
      `SELECT e.id, e.status, e.scheduled_for AS "scheduledFor"
         FROM execution_slots k JOIN executions e ON e.id = k.execution_id
        WHERE k.job_id = $1 AND k.slot = ANY ($2::timestamptz[]) AND e.trigger = 'SCHEDULE'`,
      [jobId, slots],
    );
  }
}
