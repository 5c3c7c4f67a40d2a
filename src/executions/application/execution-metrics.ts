import type { LauncherKind } from '../../config/orbit-config.js';
import type { Execution, FailureCause } from '../domain/execution.js';

/** What the application reports for the metrics endpoint; the Prometheus details live in observability. */
export abstract class ExecutionMetrics {
  /**
   * A transition landed: a start feeds the delay histograms, a final state the counters and
   * durations; `cause` is the change's (a timeout is counted from it, not from the message).
   */
  abstract transitioned(execution: Execution, cause?: FailureCause): void;
  abstract retryQueued(): void;
  abstract leaseExpired(): void;
  abstract fireSkipped(): void;
  /** This node's worker starts its commands through `kind`. */
  abstract launcherInUse(kind: LauncherKind): void;
  /** A retention pass of this node ended at `at`, having deleted what it says; or failed (`deleted` undefined). */
  abstract retentionPassed(at: Date, ms: number, deleted?: { executions: number; jobEvents: number }): void;
}
