import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname, loadavg } from 'node:os';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import {
  ExecutionOutput,
  ExecutionOutputRepository,
} from '../../executions/application/execution-output.repository.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ClaimingWorker, ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { Execution, ExecutionChange } from '../../executions/domain/execution.js';
import { BackgroundLoop, BackgroundService, Wakeable } from '../../shared/application/background-loop.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { ORBIT_VERSION } from '../../shared/orbit-version.js';
import { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { DomainError } from '../../shared/domain/domain-errors.js';
import { parseLabels } from '../../shared/domain/labels.js';
import { actionFor, shutDown } from './command-outcome.js';
import { commandRequestFor } from './command-request.js';
import { CommandOutcome, CommandRunner } from './command-runner.js';
import { LeaseKeeper } from './lease-keeper.js';
import { OutputFlusher } from './output-flusher.js';
import { RunningCommand } from './running-command.js';

/** What one cycle asked for (its free slots) and locked. */
interface Claim {
  asked: number;
  claimed: Execution[];
}

/** A command that ended, waiting for its outcome to be recorded. */
interface Finished {
  run: RunningCommand;
  output: ExecutionOutput;
  action: ExecutionChange;
}

/**
 * Claims due executions, runs them, reports each outcome through the domain, and keeps the
 * leases of what it runs alive. A command whose lease this worker can no longer renew
 * (cancelled, reaped, or the database unreachable for a whole lease) is stopped.
 */
@Injectable()
export class WorkerService implements OnModuleInit, BackgroundService, Wakeable {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** What its claims ask for: runs whose selector its labels satisfy (host=<hostname> unless the labels say otherwise). */
  private readonly claimant: ClaimingWorker;
  private readonly logger = new Logger(WorkerService.name);
  /** Every execution this worker claimed, until its outcome is recorded. */
  private readonly running = new Map<string, RunningCommand>();
  /** Outcomes the next cycle records, in the same transaction as its claims. */
  private finished: Finished[] = [];
  /** Shutting down: outcomes are still recorded, nothing new is claimed. */
  private draining = false;
  /** Executions a cycle in flight has locked, not launched yet: they hold slots. */
  private claiming = 0;
  /** The claim whose turn it is: claims count free slots and lock rows one at a time. */
  private claimTurn: Promise<void> = Promise.resolve();
  /** A wake for ended commands waits for the end of this turn (see wakeAtTurnEnd). */
  private wakeQueued = false;
  private readonly loop: BackgroundLoop;
  private readonly leases: LeaseKeeper;
  private readonly outputFlusher: OutputFlusher;

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
    // a label that breaks the rules stops the node at start, naming ORBIT_WORKER_LABELS
    const labels = parseLabels(config.workerLabels, 'ORBIT_WORKER_LABELS');
    this.claimant = { id: this.id, labels: { host: hostname(), ...labels } };
    const cadence = { pollMs: config.pollIntervalMs, lanes: 2 };
    this.loop = new BackgroundLoop('worker pass', () => this.cycle(), cadence, this.logger);
    this.leases = new LeaseKeeper(
      this.id,
      config,
      clock,
      executionRepository,
      registry,
      runner,
      this.running,
      this.logger,
    );
    this.outputFlusher = new OutputFlusher(outputs, clock, this.running, this.logger);
  }

  /** Before any loop of the node starts: a command user or a work dir that cannot serve stops the start. */
  onModuleInit(): Promise<void> {
    return this.runner.prepare(this.config.workDir);
  }

  /** Registers the worker, then starts its leases, its output flushes and its claim loop. */
  async start(): Promise<void> {
    const now = this.clock.now();
    await this.registry.register({
      id: this.id,
      host: hostname(),
      pid: process.pid,
      version: ORBIT_VERSION,
      concurrency: this.config.workerConcurrency,
      labels: this.claimant.labels,
      startedAt: now,
      lastHeartbeatAt: now,
      running: 0,
      draining: false,
      launcher: this.runner.launcherKind,
      loadAverage: loadavg()[0]!,
      cpus: availableParallelism(),
    });
    this.metrics.launcherInUse(this.runner.launcherKind);
    this.leases.start();
    this.outputFlusher.start();
    this.logger.log({ workerId: this.id, msg: `Worker started (concurrency ${this.config.workerConcurrency})` });
    this.loop.start();
  }

  /** When the claim loop last completed a pass (Date.now()), for the readiness check. */
  lastPassAt(): number | undefined {
    return this.loop.lastPassAt();
  }

  /** New work was queued: claimed beside a cycle in flight, when there is a free slot for it. */
  wake(): void {
    this.loop.wake(this.freeSlots(0) > 0);
  }

  /** A cancel reached this node: stop the command if it runs here. The execution is CANCELLED already. */
  cancelled(executionId: string): void {
    if (this.running.has(executionId)) {
      this.logger.log({ ...this.idsOf(executionId), msg: 'Cancelled: stopping its command' });
      this.runner.kill(executionId);
    }
  }

  /** Stop claiming; give running commands the grace to finish; stop and fail the rest, so they retry. */
  async stop(): Promise<void> {
    this.draining = true;
    // a cycle in flight may have claimed runs it has not launched yet: they are this node's to drain too
    await this.loop.idle();
    const graceSeconds = this.config.shutdownGraceSeconds;
    const live = [...this.running.values()].filter((run) => !run.hasExited);
    if (live.length > 0) {
      this.logger.log(`Waiting up to ${graceSeconds}s for ${live.length} running command(s)`);
      await Promise.race([Promise.all(live.map((run) => run.exited)), sleep(graceSeconds * 1000)]);
    }
    for (const [id, run] of this.running) {
      if (run.hasExited) continue;
      run.stoppedBy = shutDown(graceSeconds);
      this.runner.kill(id);
    }
    await Promise.all([...this.running.values()].map((run) => run.exited));
    // the outcomes still need the database; past a lease, the lease reaper of another node decides
    this.loop.wake();
    const recorded = Promise.all([...this.running.values()].map((run) => run.recorded));
    await Promise.race([recorded, sleep(this.config.leaseSeconds * 1000)]);
    await this.loop.stop();
    await Promise.all([this.leases.stop(), this.outputFlusher.stop()]);
    await this.runner.close();
    await this.registry.stopped(this.id, this.clock.now()).catch(() => undefined);
  }

  /**
   * One transaction records the outcomes of the commands that ended since the last cycle and
   * claims as many due executions as there are free slots, each started by the domain: one
   * commit per cycle, however many executions it moves. When new work arrives for a free slot
   * while a cycle is in flight, a second cycle claims it at once rather than after that cycle's
   * commit; ended commands wait for the next cycle, so a busy worker still batches them.
   */
  private async cycle(): Promise<Date | null> {
    for (;;) {
      const done = this.finished.splice(0);
      if (done.length === 0 && this.freeSlots(0) <= 0) return null;
      const claim: Claim = { asked: 0, claimed: [] };
      let now = this.clock.now();
      let stale: Execution[];
      try {
        stale = await this.transactions.run(async () => {
          now = this.clock.now();
          return this.recordAndClaim(done, now, claim);
        });
      } catch (error) {
        this.claiming -= claim.claimed.length;
        if (!(error instanceof DomainError)) {
          this.finished.unshift(...done);
          throw error;
        }
        // the domain refused an outcome (it should not): record each on its own, so one cannot block the rest
        for (const item of done) await this.recordAlone(item);
        continue;
      }
      this.claiming -= claim.claimed.length;
      for (const execution of claim.claimed) this.metrics.transitioned(execution);
      for (const execution of claim.claimed) this.launch(execution);
      for (const item of done) if (!stale.includes(item.run.execution)) this.recorded(item.run);
      for (const item of done) if (stale.includes(item.run.execution)) await this.recordAlone(item);
      if (claim.claimed.length < claim.asked && this.finished.length === 0)
        return this.executionRepository.earliestDue(now, this.claimant);
    }
  }

  /** Slots neither running, nor claimed by a cycle in flight; `freed` are this cycle's ended commands. */
  private freeSlots(freed: number): number {
    return this.draining ? 0 : this.config.workerConcurrency - this.running.size - this.claiming + freed;
  }

  /**
   * Records the outcomes and outputs of ended commands and claims for the free slots, the ended
   * and the started runs written by one statement; answers the ended executions someone else
   * changed meanwhile. A run in a lane with a limit is written ended before the claim, which
   * counts the lane's running runs.
   */
  private async recordAndClaim(done: Finished[], now: Date, claim: Claim): Promise<Execution[]> {
    const ended = done.map(({ run, action }) => ({ execution: run.execution, action }));
    if (done.length > 0) {
      await this.outputs.saveAll(
        done.map(({ run, output }) => ({ executionId: run.execution.id, output })),
        now,
      );
    }
    const endsFirst = ended.some(({ execution }) => execution.limited);
    const stale = endsFirst ? await this.executions.applyAll(ended) : [];
    await this.claim(now, done.length, claim);
    const rest = endsFirst ? [] : ended;
    if (rest.length === 0 && claim.claimed.length === 0) return stale;
    const started = { executions: claim.claimed, leaseExpiresAt: this.leases.leaseFrom(now) };
    return [...stale, ...(await this.executions.applyAll(rest, started))];
  }

  /**
   * Claims for the free slots and starts them (unwritten). Claims take turns from counting the
   * slots to locking the rows, so cycles side by side never claim more than there are slots; the
   * rows stay counted in `claiming` until the cycle launches them (or fails).
   */
  private async claim(now: Date, freed: number, claim: Claim): Promise<void> {
    const turn = this.claimTurn.then(async () => {
      claim.asked = this.freeSlots(freed);
      if (claim.asked <= 0) return;
      claim.claimed = await this.executionRepository.lockDue(now, claim.asked, this.claimant);
      this.claiming += claim.claimed.length;
    });
    this.claimTurn = turn.catch(() => undefined);
    await turn;
    for (const execution of claim.claimed) execution.start(now, this.id);
  }

  private launch(execution: Execution): void {
    let markRecorded = () => {};
    const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
    const run: RunningCommand = {
      execution,
      output: null,
      outputDirty: false,
      stoppedBy: null,
      exited: Promise.resolve(),
      hasExited: false,
      recorded,
      markRecorded,
    };
    this.running.set(execution.id, run);
    run.exited = this.runner
      .run(commandRequestFor(execution, this.config), (output) => {
        run.output = output;
        run.outputDirty = true;
      })
      .catch((error: unknown): CommandOutcome => {
        this.logger.error({ ...this.idsOf(execution.id), msg: `The command runner failed: ${String(error)}` });
        const output = run.output ?? { stdout: '', stderr: '', truncated: false };
        return { code: null, signal: null, error: String(error), lost: null, timedOut: false, killed: false, output };
      })
      .then((outcome) => {
        run.hasExited = true;
        const action = run.stoppedBy ?? actionFor(outcome, execution.timeoutSeconds);
        this.finished.push({ run, output: outcome.output, action });
        this.wakeAtTurnEnd();
      });
  }

  /**
   * Wakes the loop once the outcomes that end in this turn are all in: the spawner reports the
   * commands that ended together in one message, and a cycle started by the first would leave the
   * others, and their slots, to the cycle after it.
   */
  private wakeAtTurnEnd(): void {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.loop.wake();
    });
  }

  /**
   * Records one outcome on the execution as it is now (someone may have changed it since the
   * claim). When the domain refuses (it was cancelled or reaped meanwhile), the result is dropped
   * and only the output is kept.
   */
  private async recordAlone(item: Finished): Promise<void> {
    const id = item.run.execution.id;
    const snapshot = [{ executionId: id, output: item.output }];
    try {
      const execution = await this.transactions.run(async () => {
        await this.outputs.saveAll(snapshot, this.clock.now());
        return this.executions.act(id, item.action);
      });
      this.recorded(item.run, execution);
    } catch (error) {
      if (!(error instanceof DomainError)) {
        this.logger.warn({ ...this.idsOf(id), msg: `Could not record the outcome (${String(error)}); retrying` });
        this.finished.push(item);
        return;
      }
      this.logger.log({
        ...this.idsOf(id),
        msg: `The command's result is dropped (${error.message}; it was cancelled or reaped)`,
      });
      await this.outputs.saveAll(snapshot, this.clock.now()).catch(() => undefined);
      this.settle(item.run);
    }
  }

  private recorded(run: RunningCommand, execution = run.execution): void {
    this.logger.log({
      ...this.idsOf(execution.id),
      status: execution.status,
      exitCode: execution.exitCode,
      msg: `${execution.status}${execution.errorMessage ? `: ${execution.errorMessage}` : ''}`,
    });
    this.settle(run);
  }

  private settle(run: RunningCommand): void {
    this.running.delete(run.execution.id);
    run.markRecorded();
  }

  /** The ids every runtime log line about an execution carries. */
  private idsOf(executionId: string): { executionId: string; jobId?: string; workerId: string } {
    return { executionId, jobId: this.running.get(executionId)?.execution.jobId, workerId: this.id };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
