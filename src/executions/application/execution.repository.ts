import { Page, PageRequest } from '../../shared/application/page.js';
import { Execution } from '../domain/execution.js';
import { ExecutionStatus } from '../domain/execution-status.js';

export interface ExecutionFilter {
  jobId?: string;
  status?: ExecutionStatus;
}

/** Persistence port of executions. Every state change is a conditional write on the version it was read with. */
export abstract class ExecutionRepository {
  abstract insert(execution: Execution): Promise<void>;
  /** Persists a transition; throws StaleWriteError when someone else changed the row first. */
  abstract save(execution: Execution): Promise<void>;
  abstract findById(id: string): Promise<Execution | null>;
  abstract list(filter: ExecutionFilter, page: PageRequest): Promise<Page<Execution>>;
  abstract findActiveByJob(jobId: string): Promise<Execution[]>;
}
