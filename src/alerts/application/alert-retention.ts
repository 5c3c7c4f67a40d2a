import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Clock } from '../../shared/domain/clock.js';
import { DeliveryRepository } from './delivery.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The first sweep runs this soon after start (or after one interval, if that is shorter). */
const FIRST_SWEEP_DELAY_MS = 5_000;

export interface AlertSweepResult {
  /** Deliveries deleted, with their attempts. */
  deliveries: number;
  /** Job states deleted. */
  jobStates: number;
}

/**
 * On the `all` and `worker` roles, with the executions' retention settings (ORBIT_RETENTION_DAYS,
 * _BATCH_SIZE, _INTERVAL_SECONDS): deletes delivered and failed deliveries that finished more
 * than the days ago, with their attempts, batch by batch, each its own statement; PENDING ones
 * stay, whatever their age. A job state older than that goes when it says "not failing" (no
 * state says the same) or when its job is gone; a failing one of a live job stays, since the
 * job's next success is its `recovered`. Deliveries are a record of messages, not of runs:
 * the newest N per job that executions keep do not apply.
 */
@Injectable()
export class AlertRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AlertRetention.name);
  private firstTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private stopping = false;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly deliveries: DeliveryRepository,
    private readonly jobs: JobsService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api') return;
    const everyMs = this.config.retentionIntervalSeconds * 1000;
    this.firstTimer = setTimeout(() => this.tick(), Math.min(FIRST_SWEEP_DELAY_MS, everyMs));
    this.timer = setInterval(() => this.tick(), everyMs);
    this.firstTimer.unref();
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.firstTimer);
    clearInterval(this.timer);
    await this.sweeping;
  }

  async sweep(now: Date = this.clock.now()): Promise<AlertSweepResult> {
    const { retentionDays, retentionBatchSize } = this.config;
    const olderThan = new Date(now.getTime() - retentionDays * DAY_MS);
    const result: AlertSweepResult = { deliveries: 0, jobStates: 0 };
    for (let count = retentionBatchSize; count === retentionBatchSize && !this.stopping;) {
      count = await this.deliveries.pruneFinished(olderThan, retentionBatchSize);
      result.deliveries += count;
    }
    let after: string | null = null;
    while (!this.stopping) {
      const stale = await this.deliveries.staleJobStates(olderThan, after, retentionBatchSize);
      const live = await this.jobs.alertsOf(stale.filter((state) => state.failing).map((state) => state.jobId));
      const gone = stale.filter((state) => !state.failing || !live.has(state.jobId)).map((state) => state.jobId);
      result.jobStates += await this.deliveries.deleteJobStates(gone, olderThan);
      if (stale.length < retentionBatchSize) break;
      after = stale.at(-1)!.jobId;
    }
    if (result.deliveries + result.jobStates > 0) {
      this.logger.log(
        `Retention: deleted ${result.deliveries} deliveries and ${result.jobStates} alert job states older than ${retentionDays} days`,
      );
    }
    return result;
  }

  private tick(): void {
    if (this.sweeping || this.stopping) return;
    this.sweeping = this.sweep()
      .catch((error: unknown) => this.logger.warn(`Alert retention sweep failed: ${String(error)}`))
      .finally(() => {
        this.sweeping = undefined;
      });
  }
}
