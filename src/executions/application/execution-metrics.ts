import type { Execution } from '../domain/execution.js';

/** What the application reports for the metrics endpoint; the Prometheus details live in observability. */
export abstract class ExecutionMetrics {
  /** A transition landed: a start feeds the delay histograms, a final state the counters and durations. */
  abstract transitioned(execution: Execution): void;
  abstract retryQueued(): void;
  abstract leaseExpired(): void;
  abstract fireSkipped(): void;
}
