import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { WorkerInfo } from '../application/worker-registry.js';

/**
 * The columns of `workers` that hold a worker's info, one per field (the compiler checks that
 * none is missing). Not listed: `stopped_at`, which only the worker's stop writes; reads pass over
 * stopped workers.
 */
export const WORKER_COLUMNS = new TableColumns<WorkerInfo>('workers', {
  id: { type: 'text' },
  host: { type: 'text' },
  pid: { type: 'integer' },
  version: { type: 'text' },
  concurrency: { type: 'integer' },
  startedAt: { type: 'timestamptz' },
  lastHeartbeatAt: { type: 'timestamptz' },
  running: { type: 'integer' },
  labels: { type: 'jsonb' },
  draining: { type: 'boolean' },
  launcher: { type: 'text' },
  loadAverage: { type: 'real' },
  cpus: { type: 'integer' },
});
