import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { OrbitEvent } from '../domain/orbit-event.js';

/** A row of `event_log` or of the `events` view: an event, its seq as pg reads a bigint. */
export type EventRow = Omit<OrbitEvent, 'seq'> & { seq: string };

/** The columns of `event_log` and of the `events` view, one per field of an event (the compiler checks that none is missing). */
export const EVENT_COLUMNS = new TableColumns<EventRow>('event_log', {
  seq: { type: 'bigint' },
  type: { type: 'text' },
  at: { type: 'timestamptz' },
  jobId: { type: 'uuid' },
  executionId: { type: 'uuid' },
  from: { type: 'text', column: 'from_status' },
  to: { type: 'text', column: 'to_status' },
  attempt: { type: 'integer' },
  trigger: { type: 'text' },
  exitCode: { type: 'integer' },
  errorMessage: { type: 'text' },
  workerId: { type: 'text' },
  retryQueued: { type: 'boolean' },
  cause: { type: 'text' },
  slot: { type: 'timestamptz' },
  detail: { type: 'jsonb' },
});

/** A row of `event_cursors`: how far a consumer has read the stream. */
export interface EventCursorRow {
  consumer: string;
  /** A bigint, as pg reads it. */
  afterSeq: string;
  updatedAt: Date;
}

/** The columns of `event_cursors`, one per field of its row. */
export const EVENT_CURSOR_COLUMNS = new TableColumns<EventCursorRow>('event_cursors', {
  consumer: { type: 'text' },
  afterSeq: { type: 'bigint' },
  updatedAt: { type: 'timestamptz' },
});
