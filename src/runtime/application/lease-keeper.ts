import { loadavg } from 'node:os';
import { Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { BackgroundLoop } from '../../shared/application/background-loop.js';
import { Clock } from '../../shared/domain/clock.js';
import { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { CommandRunner } from './command-runner.js';
import type { RunningCommands } from './running-command.js';

/**
 * Renews the leases of what a worker runs, every heartbeat, and stops a command whose lease it
 * can no longer keep: one cancelled or reaped meanwhile, or every one when the database has
 * been out of reach so long that the leases could run out before the next beat (another node
 * then fails them and starts their retries, and the two must not overlap).
 */
export class LeaseKeeper {
  private readonly loop: BackgroundLoop;
  private lastRenewedAt = 0;

  constructor(
    private readonly workerId: string,
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly executionRepository: ExecutionRepository,
    private readonly registry: WorkerRegistry,
    private readonly runner: CommandRunner,
    private readonly running: RunningCommands,
    private readonly logger: Logger,
  ) {
    // a beat logs its own failures: it must go on to its kill check
    this.loop = new BackgroundLoop('Heartbeat', () => this.beat(), { everyMs: config.heartbeatSeconds * 1000 }, logger);
  }

  start(): void {
    this.lastRenewedAt = this.clock.now().getTime();
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** The lease a claim or a renewal at `now` gets. */
  leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.config.leaseSeconds * 1000);
  }

  async beat(): Promise<void> {
    const ids = [...this.running.keys()];
    try {
      const now = this.clock.now();
      const { renewed, held } = await this.executionRepository.renewLeases(this.workerId, ids, this.leaseFrom(now));
      // a row held by a writer kept its old lease: normally this worker's own cycle recording an
      // ended command, which needs no lease; a command still running does
      const lapsing = held.filter((id) => this.running.get(id)?.hasExited === false);
      if (lapsing.length === 0) this.lastRenewedAt = now.getTime();
      else this.logger.warn(`Leases not renewed: another transaction holds ${lapsing.join(', ')}`);
      await this.registry.beat(this.workerId, this.running.size, this.clock.now(), loadavg()[0]!);
      const ours = new Set([...renewed, ...held]);
      for (const id of ids) {
        if (!ours.has(id) && this.running.has(id)) {
          this.logger.warn({
            executionId: id,
            jobId: this.running.get(id)?.execution.jobId,
            workerId: this.workerId,
            msg: "No longer this worker's (cancelled or reaped): stopping its command",
          });
          this.runner.kill(id);
        }
      }
    } catch (error) {
      const silentFor = this.clock.now().getTime() - this.lastRenewedAt;
      this.logger.warn(`Heartbeat failed (${String(error)}); leases last renewed ${Math.round(silentFor / 1000)}s ago`);
    }
    const sinceRenewal = this.clock.now().getTime() - this.lastRenewedAt;
    if (sinceRenewal + this.config.heartbeatSeconds * 1000 >= this.config.leaseSeconds * 1000) {
      for (const id of ids) this.runner.kill(id);
    }
  }
}
