import { Injectable } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { RunningExecution, RunningExecutions } from '../application/running-executions.js';

/** The running ones are few (each worker's concurrency at most): executions_running_idx holds only them. */
const ON_WORKERS = `SELECT id, job_id AS "jobId", worker_id AS "workerId", started_at AS "startedAt"
  FROM executions
 WHERE status = 'RUNNING' AND worker_id = ANY($1::text[])
 ORDER BY started_at, id`;

@Injectable()
export class SqlRunningExecutions extends RunningExecutions {
  constructor(private readonly db: Database) {
    super();
  }

  onWorkers(workerIds: readonly string[]): Promise<RunningExecution[]> {
    return this.db.rows<RunningExecution>(ON_WORKERS, [workerIds]);
  }
}
