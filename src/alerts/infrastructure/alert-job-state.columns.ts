import { TableColumns } from '../../shared/infrastructure/table-columns.js';

/** A row of `alert_job_states`: whether a job's last final outcome was a failure (for `recovered`). */
export interface AlertJobStateRow {
  jobId: string;
  failing: boolean;
  updatedAt: Date;
}

/** The columns of `alert_job_states`, one per field of its row. */
export const ALERT_JOB_STATE_COLUMNS = new TableColumns<AlertJobStateRow>('alert_job_states', {
  jobId: { type: 'uuid' },
  failing: { type: 'boolean' },
  updatedAt: { type: 'timestamptz' },
});
