import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { timedOut, workerLost } from './command-outcome.js';
import { PlacementSweep } from './placement-sweep.js';

const BATCH = 100;

/**
 * On every node: fails RUNNING executions whose worker stopped renewing its lease, and those
 * an outside runner started and never finished within their timeout. The retry rule applies.
 */
@Injectable()
export class LeaseReaperService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LeaseReaperService.name);
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly metrics: ExecutionMetrics,
    private readonly placement: PlacementSweep,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = Math.min(this.config.heartbeatSeconds, 5) * 1000;
    this.timer = setInterval(() => {
      this.sweeping = Promise.all([
        this.sweep().catch((error: unknown) => this.logger.warn(`Lease sweep failed: ${String(error)}`)),
        this.placement.sweep().catch((error: unknown) => this.logger.warn(`Placement sweep failed: ${String(error)}`)),
      ]);
    }, everyMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
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
