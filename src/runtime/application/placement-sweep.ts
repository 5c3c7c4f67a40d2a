import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { ExecutionChange } from '../../executions/domain/execution.js';
import { BackgroundLoop } from '../../shared/application/background-loop.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { NO_EXIT_CODE } from './command-outcome.js';
import { reaperIntervalMs } from './lease-reaper.service.js';

const BATCH = 100;

/** A pinned run whose worker is gone: it is started and failed at once, by nobody, and not retried. */
function pinnedWorkerGone(workerId: string): ExecutionChange {
  const change: ExecutionChange = (e, now) =>
    e.fail(NO_EXIT_CODE, `Worker ${workerId} is gone: a run pinned to it runs nowhere else`, now, 'worker_lost');
  return Object.assign(change, { cause: 'worker_lost' as const });
}

/**
 * On every node with the runtime, as often as the lease reaper: says on each queued run that no
 * live worker can take why (`waitingFor`), and fails the runs pinned to a worker that stopped
 * being alive (a lease without a heartbeat, or stopped) before they started.
 */
@Injectable()
export class PlacementSweep {
  private readonly logger = new Logger(PlacementSweep.name);
  readonly loop: BackgroundLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly workers: WorkerRegistry,
  ) {
    const cadence = { everyMs: reaperIntervalMs(config) };
    this.loop = new BackgroundLoop('Placement sweep', () => this.sweep(), cadence, this.logger);
  }

  /** One sweep at `now`; answers how many pinned runs it failed. */
  async sweep(now: Date = this.clock.now()): Promise<number> {
    const live = await this.workers.recent(new Date(now.getTime() - this.config.leaseSeconds * 1000));
    await this.executionRepository.markWaiting(live.map(({ id, labels, draining }) => ({ id, labels, draining })));
    return this.transactions.run(async () => {
      const orphans = await this.executionRepository.lockPinnedElsewhere(
        live.map((worker) => worker.id),
        BATCH,
      );
      for (const execution of orphans) {
        const workerId = execution.pinnedWorker!;
        this.logger.warn({
          executionId: execution.id,
          jobId: execution.jobId,
          workerId,
          msg: 'Its pinned worker is gone',
        });
        await this.executions.apply(execution, (e, at) => e.start(at));
        await this.executions.apply(execution, pinnedWorkerGone(workerId));
      }
      return orphans.length;
    });
  }
}
