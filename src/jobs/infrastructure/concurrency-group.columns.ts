import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { ConcurrencyGroupProps } from '../domain/concurrency-group.js';

/** The columns of `concurrency_groups`, one per field of a group's props (the compiler checks that none is missing). */
export const CONCURRENCY_GROUP_COLUMNS = new TableColumns<ConcurrencyGroupProps>('concurrency_groups', {
  id: { type: 'uuid' },
  name: { type: 'text' },
  team: { type: 'text' },
  limit: { type: 'integer', column: '"limit"' },
  createdAt: { type: 'timestamptz' },
  updatedAt: { type: 'timestamptz' },
  version: { type: 'integer' },
});
