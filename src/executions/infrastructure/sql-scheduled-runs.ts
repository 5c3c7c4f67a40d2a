import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ScheduledRun, ScheduledRuns } from '../application/scheduled-runs.js';

@Injectable()
export class SqlScheduledRuns extends ScheduledRuns {
  constructor(private readonly db: Database) {
    super();
  }

  /** Probes of executions_job_slot_key (unique per job and slot, for SCHEDULE executions only). */
  async forSlots(jobId: string, slots: readonly Date[]): Promise<ScheduledRun[]> {
    if (slots.length === 0) return [];
    return this.db.rows<ScheduledRun>(
      `SELECT id, status, scheduled_for AS "scheduledFor" FROM executions
        WHERE job_id = $1 AND trigger = 'SCHEDULE' AND scheduled_for = ANY ($2::timestamptz[])`,
      [jobId, slots],
    );
  }
}
