import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import {
  ExecutionOutput,
  ExecutionOutputRepository,
} from '../../executions/application/execution-output.repository.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { Execution, ExecutionChange } from '../../executions/domain/execution.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { IllegalTransitionError } from '../../shared/domain/domain-errors.js';
import { actionFor, shutDown } from './command-outcome.js';
import { CommandRunner } from './command-runner.js';
import { Wakeable, WakeLoop } from './wake-loop.js';

interface Running {
  execution: Execution;
  output: ExecutionOutput | null;
  outputDirty: boolean;
  /** Set when shutdown stopped the command: its failure names the shutdown, not the signal. */
  stoppedBy: ExecutionChange | null;
  done: Promise<void>;
}

/** Variables a command gets from the server's environment; nothing else leaks (no DATABASE_URL, no tokens). */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'TMPDIR'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const OUTPUT_FLUSH_MS = 1000;

/**
 * Claims due executions, runs them, reports each outcome through the domain, and keeps the
 * leases of what it runs alive. A command whose lease this worker can no longer renew
 * (cancelled, reaped, or the database unreachable for a whole lease) is stopped.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown, Wakeable {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly logger = new Logger(WorkerService.name);
  private readonly running = new Map<string, Running>();
  private readonly loop: WakeLoop;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private outputTimer: NodeJS.Timeout | undefined;
  private lastHeartbeat = Date.now();

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly outputs: ExecutionOutputRepository,
    private readonly runner: CommandRunner,
    private readonly registry: WorkerRegistry,
    private readonly metrics: ExecutionMetrics,
  ) {
    this.loop = new WakeLoop('worker', () => this.claimAndLaunch(), config.pollIntervalMs, this.logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.prepare(this.config.workDir);
    const now = this.clock.now();
    await this.registry.register({
      id: this.id,
      host: hostname(),
      pid: process.pid,
      version: ORBIT_VERSION,
      concurrency: this.config.workerConcurrency,
      startedAt: now,
      lastHeartbeatAt: now,
      running: 0,
    });
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.config.heartbeatSeconds * 1000);
    this.outputTimer = setInterval(() => void this.flushOutputs(), OUTPUT_FLUSH_MS);
    this.logger.log({ workerId: this.id, msg: `Worker started (concurrency ${this.config.workerConcurrency})` });
    this.loop.start();
  }

  /** When the claim loop last completed a pass (Date.now()), for the readiness check. */
  lastLoopPassAt(): number | undefined {
    return this.loop.lastPassAt;
  }

  wake(): void {
    this.loop.wake();
  }

  /** A cancel reached this node: stop the command if it runs here. The execution is CANCELLED already. */
  cancelled(executionId: string): void {
    if (this.running.has(executionId)) {
      this.logger.log({ ...this.idsOf(executionId), msg: 'Cancelled: stopping its command' });
      this.runner.kill(executionId);
    }
  }

  /** Stop claiming; give running commands the grace to finish; stop and fail the rest, so they retry. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    const graceSeconds = this.config.shutdownGraceSeconds;
    if (this.running.size > 0) {
      this.logger.log(`Waiting up to ${graceSeconds}s for ${this.running.size} running command(s)`);
      await Promise.race([this.allDone(), sleep(graceSeconds * 1000)]);
    }
    for (const [id, run] of this.running) {
      run.stoppedBy = shutDown(graceSeconds);
      this.runner.kill(id);
    }
    await this.allDone();
    clearInterval(this.heartbeatTimer);
    clearInterval(this.outputTimer);
    await this.runner.close();
    await this.registry.stopped(this.id, this.clock.now()).catch(() => undefined);
  }

  /** One claim: as many due executions as there are free slots, each started by the domain. */
  private async claimAndLaunch(): Promise<Date | null> {
    for (;;) {
      const free = this.config.workerConcurrency - this.running.size;
      if (free <= 0 || this.loop.stopping) return null;
      const claimed = await this.claim(free);
      for (const execution of claimed) this.launch(execution);
      if (claimed.length < free) return this.executionRepository.earliestDue();
    }
  }

  private claim(limit: number): Promise<Execution[]> {
    return this.transactions.run(async () => {
      const now = this.clock.now();
      const due = await this.executionRepository.lockDue(now, limit);
      for (const execution of due) execution.start(now, this.id);
      await this.executionRepository.saveClaimed(due, this.leaseFrom(now));
      for (const execution of due) this.metrics.transitioned(execution);
      return due;
    });
  }

  private launch(execution: Execution): void {
    const run: Running = { execution, output: null, outputDirty: false, stoppedBy: null, done: Promise.resolve() };
    this.running.set(execution.id, run);
    run.done = this.runner
      .run(this.requestFor(execution), (output) => {
        run.output = output;
        run.outputDirty = true;
      })
      .then(async (outcome) => {
        await this.record(run, outcome.output, run.stoppedBy ?? actionFor(outcome, execution.timeoutSeconds));
      })
      .catch((error: unknown) => this.logger.error({ ...this.idsOf(execution.id), msg: String(error) }))
      .finally(() => {
        this.running.delete(execution.id);
        this.loop.wake();
      });
  }

  /**
   * Saves the output and the outcome. The database may be away for a moment: the outcome is
   * retried while the lease would still hold; after that the lease reaper decides.
   */
  private async record(run: Running, output: ExecutionOutput, action: ExecutionChange): Promise<void> {
    const id = run.execution.id;
    const deadline = Date.now() + this.config.leaseSeconds * 1000;
    for (;;) {
      try {
        const execution = await this.transactions.run(async () => {
          await this.outputs.save(id, output, this.clock.now());
          return this.executions.act(id, action);
        });
        this.logger.log({
          ...this.idsOf(id),
          status: execution.status,
          exitCode: execution.exitCode,
          msg: `${execution.status}${execution.errorMessage ? `: ${execution.errorMessage}` : ''}`,
        });
        return;
      } catch (error) {
        if (error instanceof IllegalTransitionError) {
          this.logger.log({
            ...this.idsOf(id),
            msg: `The command's result is dropped (${error.message}; it was cancelled or reaped)`,
          });
          await this.outputs.save(id, output, this.clock.now()).catch(() => undefined);
          return;
        }
        if (Date.now() > deadline) throw error;
        this.logger.warn({ ...this.idsOf(id), msg: `Could not record the outcome (${String(error)}); retrying` });
        await sleep(1000);
      }
    }
  }

  private async heartbeat(): Promise<void> {
    const ids = [...this.running.keys()];
    try {
      const renewed = new Set(
        await this.executionRepository.renewLeases(this.id, ids, this.leaseFrom(this.clock.now())),
      );
      this.lastHeartbeat = Date.now();
      await this.registry.beat(this.id, this.running.size, this.clock.now());
      for (const id of ids) {
        if (!renewed.has(id) && this.running.has(id)) {
          this.logger.warn({
            ...this.idsOf(id),
            msg: "No longer this worker's (cancelled or reaped): stopping its command",
          });
          this.runner.kill(id);
        }
      }
    } catch (error) {
      const silentFor = Date.now() - this.lastHeartbeat;
      this.logger.warn(`Heartbeat failed (${String(error)}); leases last renewed ${Math.round(silentFor / 1000)}s ago`);
      // the next beat may come too late: stop now if the leases could run out before it, since
      // another node then fails these executions and starts their retries, and the two must not overlap
      if (silentFor + this.config.heartbeatSeconds * 1000 >= this.config.leaseSeconds * 1000) {
        for (const id of ids) this.runner.kill(id);
      }
    }
  }

  private async flushOutputs(): Promise<void> {
    for (const [id, run] of this.running) {
      if (!run.outputDirty || !run.output) continue;
      run.outputDirty = false;
      await this.outputs.save(id, run.output, this.clock.now()).catch(() => (run.outputDirty = true));
    }
  }

  private requestFor(execution: Execution) {
    const env: Record<string, string> = { PATH: DEFAULT_PATH };
    for (const name of INHERITED_ENV) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    Object.assign(env, {
      ORBIT_EXECUTION_ID: execution.id,
      ORBIT_JOB_ID: execution.jobId,
      ORBIT_ATTEMPT: String(execution.attempt),
    });
    return {
      id: execution.id,
      command: execution.command,
      cwd: this.config.workDir,
      env,
      timeoutMs: execution.timeoutSeconds * 1000,
      killGraceMs: this.config.killGraceSeconds * 1000,
      outputLimitBytes: this.config.outputLimitKb * 1024,
    };
  }

  /** The ids every runtime log line about an execution carries. */
  private idsOf(executionId: string): { executionId: string; jobId?: string; workerId: string } {
    return { executionId, jobId: this.running.get(executionId)?.execution.jobId, workerId: this.id };
  }

  private leaseFrom(now: Date): Date {
    return new Date(now.getTime() + this.config.leaseSeconds * 1000);
  }

  private async allDone(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.done));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const ORBIT_VERSION = '0.1.0';
