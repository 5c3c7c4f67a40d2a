import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { AppliedJobs } from '../application/applied-jobs.js';
import { APPLIED_JOB_COLUMNS, AppliedJobRow } from './applied-job.columns.js';

/** Any constant key of pg_advisory_xact_lock that no other part of Orbit takes: "orbit ap" in ASCII. */
const APPLY_LOCK = 0x6f72_6269_7420_6170n;

@Injectable()
export class SqlAppliedJobs extends AppliedJobs {
  constructor(private readonly db: Database) {
    super();
  }

  async lock(): Promise<void> {
    await this.db.rows(`SELECT pg_advisory_xact_lock($1::bigint)`, [APPLY_LOCK.toString()]);
  }

  async ids(): Promise<Set<string>> {
    const rows = await this.db.rows<AppliedJobRow>(`SELECT ${APPLIED_JOB_COLUMNS.select()} FROM applied_jobs`);
    return new Set(rows.map((row) => row.jobId));
  }

  async mark(jobId: string): Promise<void> {
    await this.db.rows(`${APPLIED_JOB_COLUMNS.insert()} ON CONFLICT DO NOTHING`, APPLIED_JOB_COLUMNS.params({ jobId }));
  }

  async unmark(jobId: string): Promise<void> {
    await this.db.rows(`DELETE FROM applied_jobs WHERE job_id = $1`, [jobId]);
  }
}
