import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { LauncherKind, OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRetentionRepository } from '../../executions/application/execution-retention.repository.js';
import { HistoryDays } from '../../executions/application/history-days.js';
import { Clock } from '../../shared/domain/clock.js';
import { RetentionHealthRepository } from '../../executions/application/retention-health.repository.js';
import { Execution, FailureCause } from '../../executions/domain/execution.js';
import { ExecutionStatus, isFinal } from '../../executions/domain/execution-status.js';
import { STREAM_KINDS, StreamLimits } from '../../shared/http/stream-limits.js';
import { Database } from '../../shared/infrastructure/database.js';
import { retentionGauges } from './retention-gauges.js';

const DELAY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 14400];
const seconds = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 1000;

/**
 * Prometheus metrics of this process, in a registry of its own. Counters and histograms count
 * what this node did (sum them across nodes); the gauges read the shared database at scrape time.
 */
@Injectable()
export class PromMetrics extends ExecutionMetrics {
  readonly registry = new Registry();
  private readonly finished = new Counter({
    name: 'orbit_executions_finished_total',
    help: 'Executions that reached a final state, by status',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly queueDelay = new Histogram({
    name: 'orbit_queue_delay_seconds',
    help: 'From an execution being due to its start',
    buckets: DELAY_BUCKETS,
    registers: [this.registry],
  });
  private readonly scheduleLateness = new Histogram({
    name: 'orbit_schedule_lateness_seconds',
    help: 'From the schedule slot (scheduledFor) to the start',
    buckets: DELAY_BUCKETS,
    registers: [this.registry],
  });
  private readonly runDuration = new Histogram({
    name: 'orbit_run_duration_seconds',
    help: 'From start to finish of executions that ran',
    labelNames: ['status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  /** Set by the worker when it starts: an API node has no launcher, and so no sample. */
  private readonly launcher = new Gauge({
    name: 'orbit_launcher_info',
    help: "What starts this node's commands (kind: native or node), always 1",
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly retentionPasses = new Counter({
    name: 'orbit_retention_passes_total',
    help: 'Retention passes this node ended, by outcome (success, failure)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly retentionDeleted = new Counter({
    name: 'orbit_retention_deleted_total',
    help: 'Rows retention deleted on this node, by kind (executions, with their output and events; job_events)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly retentionLastSuccess = new Gauge({
    name: 'orbit_retention_last_success_timestamp_seconds',
    help: "When this node's last successful retention pass ended (Unix time); 0 before the first",
    registers: [this.registry],
  });
  private readonly retentionLastDuration = new Gauge({
    name: 'orbit_retention_last_pass_duration_seconds',
    help: "How long this node's last retention pass took, whatever its outcome",
    registers: [this.registry],
  });
  private readonly retries = this.counter('orbit_retries_total', 'Retries queued after a failure');
  private readonly timeouts = this.counter('orbit_timeouts_total', 'Executions failed by their timeout');
  private readonly expiredLeases = this.counter(
    'orbit_leases_expired_total',
    'Executions failed because their worker vanished',
  );
  private readonly skippedFires = this.counter(
    'orbit_fires_skipped_total',
    'Schedule fires skipped (FORBID, SKIP misfires)',
  );

  constructor(
    db: Database,
    config: OrbitConfig,
    streams: StreamLimits,
    retention: ExecutionRetentionRepository,
    health: RetentionHealthRepository,
    days: HistoryDays,
    clock: Clock,
  ) {
    super();
    collectDefaultMetrics({ register: this.registry, prefix: 'orbit_process_' });
    const count = async (sql: string, params: unknown[] = []) => (await db.rows<{ n: number }>(sql, params))[0]?.n ?? 0;
    for (const status of [ExecutionStatus.QUEUED, ExecutionStatus.RUNNING]) {
      new Gauge({
        name: `orbit_executions_${status.toLowerCase()}`,
        help: `Executions now ${status}`,
        registers: [this.registry],
        async collect() {
          this.set(await count('SELECT count(*)::int AS n FROM executions WHERE status = $1', [status]));
        },
      });
    }
    new Gauge({
      name: 'orbit_executions_unroutable',
      help: 'Queued executions that no live worker can take (see their waitingFor)',
      registers: [this.registry],
      async collect() {
        this.set(
          await count(`SELECT count(*)::int AS n FROM executions WHERE status = 'QUEUED' AND waiting_for IS NOT NULL`),
        );
      },
    });
    new Gauge({
      name: 'orbit_streams_open',
      help: 'Event streams this node holds open, by kind (events, output); see ORBIT_STREAMS_PER_NODE',
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        for (const kind of STREAM_KINDS) this.set({ kind }, streams.openOf(kind));
      },
    });
    retentionGauges(this.registry, config, retention, health, days, clock);
    new Gauge({
      name: 'orbit_workers_live',
      help: 'Workers whose heartbeat is within a lease',
      registers: [this.registry],
      async collect() {
        this.set(
          await count(
            `SELECT count(*)::int AS n FROM workers
             WHERE stopped_at IS NULL AND last_heartbeat_at > now() - make_interval(secs => $1)`,
            [config.leaseSeconds],
          ),
        );
      },
    });
  }

  transitioned(execution: Execution, cause?: FailureCause): void {
    const { status, startedAt, finishedAt, dueAt, scheduledFor } = execution;
    if (status === ExecutionStatus.RUNNING && startedAt) {
      this.queueDelay.observe(Math.max(0, seconds(dueAt, startedAt)));
      if (scheduledFor && execution.trigger === 'SCHEDULE')
        this.scheduleLateness.observe(Math.max(0, seconds(scheduledFor, startedAt)));
    }
    if (!isFinal(status)) return;
    this.finished.inc({ status });
    if (startedAt && finishedAt) this.runDuration.observe({ status }, seconds(startedAt, finishedAt));
    if (status === ExecutionStatus.FAILED && cause === 'timeout') this.timeouts.inc();
  }

  retryQueued(): void {
    this.retries.inc();
  }

  leaseExpired(): void {
    this.expiredLeases.inc();
  }

  fireSkipped(): void {
    this.skippedFires.inc();
  }

  launcherInUse(kind: LauncherKind): void {
    this.launcher.set({ kind }, 1);
  }

  retentionPassed(at: Date, ms: number, deleted?: { executions: number; jobEvents: number }): void {
    this.retentionLastDuration.set(ms / 1000);
    this.retentionPasses.inc({ outcome: deleted ? 'success' : 'failure' });
    if (!deleted) return;
    this.retentionLastSuccess.set(at.getTime() / 1000);
    this.retentionDeleted.inc({ kind: 'executions' }, deleted.executions);
    this.retentionDeleted.inc({ kind: 'job_events' }, deleted.jobEvents);
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }
}
