import { TableColumns } from '../../shared/infrastructure/table-columns.js';

/** A row of `applied_jobs`: a job that `orbit apply` owns (apply may remove it when its file no longer names it). */
export interface AppliedJobRow {
  jobId: string;
}

/** The columns of `applied_jobs`, one per field of its row. */
export const APPLIED_JOB_COLUMNS = new TableColumns<AppliedJobRow>('applied_jobs', {
  jobId: { type: 'uuid' },
});
