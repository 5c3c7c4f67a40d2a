import { Page, PageRequest } from '../../shared/application/page.js';
import {
  AlertPayload,
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryEvent,
  DeliveryStatus,
} from '../domain/delivery.js';

export interface NewDelivery {
  id: string;
  channelId: string;
  /** The stream event it comes from; null for a test. */
  eventSeq: number | null;
  event: DeliveryEvent;
  jobId: string | null;
  executionId: string | null;
  payload: AlertPayload;
  createdAt: Date;
  giveUpAt: Date;
}

export interface DeliveryView {
  id: string;
  channelId: string;
  channelName: string;
  /** The channel's team, which the delivery belongs to. */
  team: string;
  event: DeliveryEvent;
  jobId: string | null;
  executionId: string | null;
  status: DeliveryStatus;
  createdAt: Date;
  finishedAt: Date | null;
  nextAttemptAt: Date | null;
  attempts: DeliveryAttempt[];
}

export interface DeliveryFilter {
  channelId?: string;
  jobId?: string;
  status?: DeliveryStatus;
  /** Only the deliveries to channels of these teams (undefined: every team's). */
  teams?: readonly string[];
}

/** Where an attempt leaves its delivery. */
export interface AttemptResult {
  status: DeliveryStatus;
  /** PENDING: when the next attempt is due. */
  nextAttemptAt: Date | null;
}

/** Persistence port of deliveries and their attempts. */
export abstract class DeliveryRepository {
  /** Inserts the deliveries; one that exists for its (event, channel) already is skipped. */
  abstract insertAll(deliveries: readonly NewDelivery[]): Promise<void>;
  /**
   * Up to `limit` pending deliveries due at `now`, each claimed for `leaseMs` (its next attempt
   * moves past the lease, so a node that dies while sending leaves it to another), rows other
   * nodes are claiming skipped; their attempt counters move on.
   */
  abstract claimDue(now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** `claimDue` for one pending delivery, due or not. */
  abstract claim(id: string, now: Date, leaseMs: number): Promise<ClaimedDelivery | null>;
  /** Records an attempt, and moves the delivery on unless another node claimed it since. */
  abstract recordAttempt(
    delivery: ClaimedDelivery,
    at: Date,
    outcome: AttemptOutcome,
    result: AttemptResult,
  ): Promise<void>;
  /** The earliest pending attempt's time, or null. */
  abstract nextDue(): Promise<Date | null>;
  abstract findById(id: string): Promise<DeliveryView | null>;
  abstract list(filter: DeliveryFilter, page: PageRequest): Promise<Page<DeliveryView>>;
  /** Whether each job's last final outcome was a failure (a job never seen is absent). */
  abstract failingStates(jobIds: readonly string[]): Promise<Map<string, boolean>>;
  abstract saveFailingStates(states: ReadonlyMap<string, boolean>, now: Date): Promise<void>;

  /**
   * Deletes at most `batchSize` delivered or failed deliveries that finished before `olderThan`,
   * with their attempts; answers how many. PENDING ones are never deleted; rows another
   * transaction holds are skipped, left to a later batch.
   */
  abstract pruneFinished(olderThan: Date, batchSize: number): Promise<number>;
  /** Up to `limit` job states last changed before `olderThan`, after `afterJobId` in job order. */
  abstract staleJobStates(
    olderThan: Date,
    afterJobId: string | null,
    limit: number,
  ): Promise<{ jobId: string; failing: boolean }[]>;
  /** Deletes the states of `jobIds` that were not changed since `olderThan`; answers how many. */
  abstract deleteJobStates(jobIds: readonly string[], olderThan: Date): Promise<number>;
}
