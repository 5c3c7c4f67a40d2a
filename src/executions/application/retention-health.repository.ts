import type { RetentionHealth } from '../domain/retention-health.js';

/** Persistence port of retention's health: one record for the whole cluster. */
export abstract class RetentionHealthRepository {
  /** The record, locked until the current transaction ends: the nodes' passes take turns on it. */
  abstract lock(): Promise<RetentionHealth>;
  abstract save(health: RetentionHealth, at: Date): Promise<void>;
  /** The record as it is, without a lock: what the gauges read. */
  abstract read(): Promise<RetentionHealth>;
}
