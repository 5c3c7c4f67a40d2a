import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { BackgroundLoop } from '../../shared/application/background-loop.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { timedOut, workerLost } from './command-outcome.js';

const BATCH = 100;

/** How often the lease reaper and the placement sweep pass: every heartbeat, at least every 5 s. */
export function reaperIntervalMs(config: OrbitConfig): number {
  return Math.min(config.heartbeatSeconds, 5) * 1000;
}

/**
 * On every node: fails RUNNING executions whose worker stopped renewing its lease, and those
 * an outside runner started and never finished within their timeout. The retry rule applies.
 */
@Injectable()
export class LeaseReaperService {
  private readonly logger = new Logger(LeaseReaperService.name);
  readonly loop: BackgroundLoop;

  constructor(
    config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly metrics: ExecutionMetrics,
  ) {
    const cadence = { everyMs: reaperIntervalMs(config) };
    this.loop = new BackgroundLoop('Lease sweep', () => this.sweep(), cadence, this.logger);
  }

  /** One sweep at `now`; returns how many executions it failed. */
  sweep(now: Date = this.clock.now()): Promise<number> {
    return this.transactions.run(async () => {
      let failed = 0;
      for (const execution of await this.executionRepository.lockExpiredLeases(now, BATCH)) {
        this.logger.warn({
          executionId: execution.id,
          jobId: execution.jobId,
          workerId: execution.workerId,
          msg: 'Its worker lost its lease',
        });
        this.metrics.leaseExpired();
        await this.executions.apply(execution, workerLost);
        failed++;
      }
      for (const execution of await this.executionRepository.lockTimedOutOutsideRuns(now, BATCH)) {
        this.logger.warn({
          executionId: execution.id,
          jobId: execution.jobId,
          msg: 'No result from its outside runner within its timeout',
        });
        await this.executions.apply(execution, timedOut(execution.timeoutSeconds));
        failed++;
      }
      return failed;
    });
  }
}
