import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import type { NewDelivery } from '../application/delivery.repository.js';
import type { DeliveryAttempt, DeliveryStatus } from '../domain/delivery.js';

/** A row of `deliveries`: a delivery as it was made, and where its attempts stand. */
export interface DeliveryRow extends NewDelivery {
  status: DeliveryStatus;
  /** The attempts claimed so far. */
  attempts: number;
  nextAttemptAt: Date;
  finishedAt: Date | null;
}

/** The columns of `deliveries`, one per field of its row (the compiler checks that none is missing). */
export const DELIVERY_COLUMNS = new TableColumns<DeliveryRow>('deliveries', {
  id: { type: 'uuid' },
  channelId: { type: 'uuid' },
  eventSeq: { type: 'bigint' },
  event: { type: 'text' },
  jobId: { type: 'uuid' },
  executionId: { type: 'uuid' },
  payload: { type: 'jsonb' },
  status: { type: 'text' },
  attempts: { type: 'integer' },
  nextAttemptAt: { type: 'timestamptz' },
  giveUpAt: { type: 'timestamptz' },
  createdAt: { type: 'timestamptz' },
  finishedAt: { type: 'timestamptz' },
});

/** A row of `delivery_attempts`: one attempt's outcome, as recorded. */
export type DeliveryAttemptRow = Omit<DeliveryAttempt, 'ok'> & { deliveryId: string };

/** The columns of `delivery_attempts`, one per field of its row. */
export const DELIVERY_ATTEMPT_COLUMNS = new TableColumns<DeliveryAttemptRow>('delivery_attempts', {
  deliveryId: { type: 'uuid' },
  attempt: { type: 'integer' },
  at: { type: 'timestamptz' },
  httpStatus: { type: 'integer' },
  smtpResponse: { type: 'text' },
  error: { type: 'text' },
  latencyMs: { type: 'integer' },
});
