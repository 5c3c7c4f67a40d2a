import { Page, PageRequest } from '../../shared/application/page.js';
import { ExecutionStatus } from '../domain/execution-status.js';

export interface ExecutionFilter {
  jobId?: string;
  status?: ExecutionStatus;
  /** The attempts that retry this execution. */
  retryOf?: string;
  /** Whose id begins with these hex digits (no dashes). */
  idPrefix?: string;
  /** Created at this instant or later. */
  createdFrom?: Date;
  /** Created before this instant. */
  createdBefore?: Date;
  /** Only the runs of these teams' jobs (undefined: every team's; an empty list: none). */
  teams?: readonly string[];
}

/**
 * Executions as the API shows them, serialized by the store: each item is the JSON text of one
 * ExecutionResponse, with its fields in their order. A read decides nothing, so it needs no
 * domain object: building one per row, and then a response object and its JSON, cost the list
 * endpoint about a third of its throughput.
 */
export abstract class ExecutionReadModel {
  /** One execution as JSON, or null when there is none. */
  abstract findJson(id: string): Promise<string | null>;
  /** Newest first, by keyset on (createdAt, id). */
  abstract listJson(filter: ExecutionFilter, page: PageRequest): Promise<Page<string>>;
}
