import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { BackgroundLoop, FIRST_SWEEP_AFTER_MS } from '../../shared/application/background-loop.js';
import { Clock } from '../../shared/domain/clock.js';
import { DeliveryRepository } from './delivery.repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AlertSweepResult {
  /** Deliveries deleted, with their attempts. */
  deliveries: number;
  /** Job states deleted. */
  jobStates: number;
}

/**
 * On the nodes that run background work, with the executions' retention settings (ORBIT_RETENTION_DAYS,
 * _BATCH_SIZE, _INTERVAL_SECONDS): deletes delivered and failed deliveries that finished more
 * than the days ago, with their attempts, batch by batch, each its own statement; PENDING ones
 * stay, whatever their age. A job state older than that goes when it says "not failing" (no
 * state says the same) or when its job is gone; a failing one of a live job stays, since the
 * job's next success is its `recovered`. Deliveries are a record of messages, not of runs:
 * the newest N per job that executions keep do not apply.
 */
@Injectable()
export class AlertRetention {
  private readonly logger = new Logger(AlertRetention.name);
  readonly loop: BackgroundLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly deliveries: DeliveryRepository,
    private readonly jobs: JobsService,
  ) {
    const everyMs = config.retentionIntervalSeconds * 1000;
    const cadence = { everyMs, firstAfterMs: FIRST_SWEEP_AFTER_MS };
    this.loop = new BackgroundLoop('Alert retention sweep', () => this.sweep(), cadence, this.logger);
  }

  async sweep(now: Date = this.clock.now()): Promise<AlertSweepResult> {
    const { retentionDays, retentionBatchSize } = this.config;
    const olderThan = new Date(now.getTime() - retentionDays * DAY_MS);
    const result: AlertSweepResult = { deliveries: 0, jobStates: 0 };
    for (let count = retentionBatchSize; count === retentionBatchSize && !this.loop.stopping;) {
      count = await this.deliveries.pruneFinished(olderThan, retentionBatchSize);
      result.deliveries += count;
    }
    let after: string | null = null;
    while (!this.loop.stopping) {
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
}
