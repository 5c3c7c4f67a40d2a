import { performance } from 'node:perf_hooks';
import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventRetention } from '../../events/application/event-retention.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRetentionRepository } from '../../executions/application/execution-retention.repository.js';
import { HistoryDays } from '../../executions/application/history-days.js';
import { daysAhead, isPastRetention, rowsCreatedBefore } from '../../executions/domain/history-day.js';
import { BackgroundLoop, FIRST_SWEEP_AFTER_MS } from '../../shared/application/background-loop.js';
import { Clock } from '../../shared/domain/clock.js';
import { RetentionHealthWatch } from './retention-health-watch.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many days ahead of today the history's days are made: a week of passes may fail before a run lacks its day. */
export const DAYS_AHEAD = 7;
/** How much of a failed pass's error its alert carries. */
const ERROR_MAX_LENGTH = 2000;

export interface SweepResult {
  /** Executions deleted (their output and their events went with them), by days dropped and by rows. */
  deleted: number;
  /** Days of the history dropped whole. */
  daysDropped: number;
  /** Days of the history made ahead. */
  daysMade: number;
  /** Statements run on executions, the last one being the one that deleted fewer than a full batch. */
  batches: number;
  /** Job events deleted: those older than ORBIT_RETENTION_DAYS. */
  jobEvents: number;
  /** Wall time of the sweep. */
  ms: number;
}

/**
 * On every node with the runtime: deletes finished executions older than ORBIT_RETENTION_DAYS,
 * beyond the newest ORBIT_RETENTION_KEEP_PER_JOB of each job, in batches of
 * ORBIT_RETENTION_BATCH_SIZE rows, every ORBIT_RETENTION_INTERVAL_SECONDS. Each batch is one
 * statement and so its own short transaction; QUEUED and RUNNING executions are never touched.
 * An execution's events are deleted in the statement that deletes it; job events older than
 * ORBIT_RETENTION_DAYS follow, in batches of the same size.
 * Several nodes may sweep at once: a batch skips the rows another one holds. Every pass that
 * ends, failed or not, moves the cluster's retention health (see RetentionHealthWatch).
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);
  readonly loop: BackgroundLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly retention: ExecutionRetentionRepository,
    private readonly days: HistoryDays,
    private readonly events: EventRetention,
    private readonly metrics: ExecutionMetrics,
    private readonly health: RetentionHealthWatch,
  ) {
    const everyMs = config.retentionIntervalSeconds * 1000;
    const cadence = { everyMs, firstAfterMs: FIRST_SWEEP_AFTER_MS };
    this.loop = new BackgroundLoop('Retention sweep', () => this.sweep(), cadence, this.logger);
  }

  /**
   * One sweep at `now`: batch after batch until one deletes fewer rows than a full batch (or
   * the node is shutting down), then a look at what it left. Not wrapped in a transaction, so
   * that every batch commits and releases its locks on its own. Each pass, and each failed one,
   * is on /metrics and in the cluster's retention health; a pass cut short by shutdown judges
   * nothing.
   */
  async sweep(now: Date = this.clock.now()): Promise<SweepResult> {
    const started = performance.now();
    try {
      const { result, overdueSince } = await this.prune(now, started);
      if (!this.loop.stopping) await this.health.passed({ ok: true, at: this.clock.now(), overdueSince });
      this.metrics.retentionPassed(this.clock.now(), result.ms, {
        executions: result.deleted,
        jobEvents: result.jobEvents,
      });
      return result;
    } catch (error) {
      this.metrics.retentionPassed(this.clock.now(), performance.now() - started);
      const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_MAX_LENGTH);
      await this.health.passed({ ok: false, at: this.clock.now(), error: message }).catch((recording: unknown) => {
        this.logger.error(`Retention: the failed pass could not be recorded: ${String(recording)}`);
      });
      throw error;
    }
  }

  private async prune(now: Date, started: number): Promise<{ result: SweepResult; overdueSince: Date | null }> {
    const { retentionDays, retentionKeepPerJob, retentionBatchSize } = this.config;
    const olderThan = new Date(now.getTime() - retentionDays * DAY_MS);
    // the days are made first, and a failure to make them fails the pass only once the rest is done:
    // a run is never refused for a missing day, but the cluster's alert must say that days are missing
    let making: unknown = null;
    const daysMade = await this.days.make(daysAhead(now, DAYS_AHEAD)).then(
      (made) => made.length,
      (error: unknown) => {
        making = error;
        return 0;
      },
    );
    let deleted = 0;
    let daysDropped = 0;
    const stored = await this.days.list();
    for (const day of stored.filter((kept) => isPastRetention(kept, olderThan))) {
      if (this.loop.stopping) break;
      const dropped = await this.days.drop(day, olderThan, retentionKeepPerJob);
      if (dropped === null) break; // another node is at it
      deleted += dropped.dropped;
      daysDropped++;
    }
    const createdBefore = rowsCreatedBefore(olderThan, stored);
    let batches = 0;
    for (;;) {
      const count = await this.retention.pruneBatch(olderThan, retentionKeepPerJob, retentionBatchSize, createdBefore);
      deleted += count;
      batches++;
      if (count < retentionBatchSize || this.loop.stopping) break;
    }
    let jobEvents = 0;
    while (!this.loop.stopping) {
      const count = await this.events.pruneJobEvents(olderThan, retentionBatchSize);
      jobEvents += count;
      if (count < retentionBatchSize) break;
    }
    const overdueSince = await this.retention.oldestOverdue(olderThan, retentionKeepPerJob, createdBefore);
    const ms = Math.round(performance.now() - started);
    const figures =
      `deleted ${deleted} executions older than ${retentionDays} days ` +
      `(beyond the newest ${retentionKeepPerJob} per job; ${daysDropped} days dropped whole, the rest in ${batches} batches), ` +
      `and ${jobEvents} job events; made ${daysMade} days ahead (${ms} ms)`;
    if (deleted + jobEvents + daysMade > 0) this.logger.log(`Retention: ${figures}`);
    else this.logger.debug(`Retention: ${figures}`);
    if (making !== null) {
      throw new Error(`the history's days ahead could not be made: ${String((making as Error).message ?? making)}`);
    }
    return { result: { deleted, daysDropped, daysMade, batches, jobEvents, ms }, overdueSince };
  }
}
