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
import { DomainError } from '../../shared/domain/domain-errors.js';
import { actionFor, shutDown } from './command-outcome.js';
import { CommandOutcome, CommandRunner } from './command-runner.js';
import { Wakeable, WakeLoop } from './wake-loop.js';

interface Running {
  execution: Execution;
  output: ExecutionOutput | null;
  outputDirty: boolean;
  /** Set when shutdown stopped the command: its failure names the shutdown, not the signal. */
  stoppedBy: ExecutionChange | null;
  /** Resolves when the command has ended (its outcome waits in `finished`). */
  exited: Promise<void>;
  hasExited: boolean;
  /** Resolves when the outcome is recorded, or given up on. */
  recorded: Promise<void>;
  markRecorded: () => void;
}

/** What one cycle asked for (its free slots) and locked. */
interface Claim {
  asked: number;
  claimed: Execution[];
}

/** A command that ended, waiting for its outcome to be recorded. */
interface Finished {
  run: Running;
  output: ExecutionOutput;
  action: ExecutionChange;
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
  /** Every execution this worker claimed, until its outcome is recorded. */
  private readonly running = new Map<string, Running>();
  /** Outcomes the next cycle records, in the same transaction as its claims. */
  private finished: Finished[] = [];
  /** Shutting down: outcomes are still recorded, nothing new is claimed. */
  private draining = false;
  /** Executions a cycle in flight has locked, not launched yet: they hold slots. */
  private claiming = 0;
  /** The claim whose turn it is: claims count free slots and lock rows one at a time. */
  private claimTurn: Promise<void> = Promise.resolve();
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
    this.loop = new WakeLoop('worker', () => this.cycle(), config.pollIntervalMs, this.logger, 2);
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
  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
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
    clearInterval(this.heartbeatTimer);
    clearInterval(this.outputTimer);
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
      let stale: Execution[];
      try {
        stale = await this.transactions.run(async () => {
          const now = this.clock.now();
          const stale = await this.recordAll(done, now);
          await this.claim(now, done.length, claim);
          return stale;
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
      for (const execution of claim.claimed) this.launch(execution);
      for (const item of done) if (!stale.includes(item.run.execution)) this.recorded(item.run);
      for (const item of done) if (stale.includes(item.run.execution)) await this.recordAlone(item);
      if (claim.claimed.length < claim.asked && this.finished.length === 0)
        return this.executionRepository.earliestDue();
    }
  }

  /** Slots neither running, nor claimed by a cycle in flight; `freed` are this cycle's ended commands. */
  private freeSlots(freed: number): number {
    return this.draining ? 0 : this.config.workerConcurrency - this.running.size - this.claiming + freed;
  }

  /** The outcomes and outputs of ended commands; answers the executions someone else changed meanwhile. */
  private async recordAll(done: Finished[], now: Date): Promise<Execution[]> {
    if (done.length === 0) return [];
    await this.outputs.saveAll(
      done.map(({ run, output }) => ({ executionId: run.execution.id, output })),
      now,
    );
    return this.executions.applyAll(done.map(({ run, action }) => ({ execution: run.execution, action })));
  }

  /**
   * Claims for the free slots. Claims take turns from counting the slots to locking the rows,
   * so cycles side by side never claim more than there are slots; the rows stay counted in
   * `claiming` until the cycle launches them (or fails).
   */
  private async claim(now: Date, freed: number, claim: Claim): Promise<void> {
    const turn = this.claimTurn.then(async () => {
      claim.asked = this.freeSlots(freed);
      if (claim.asked <= 0) return;
      claim.claimed = await this.executionRepository.lockDue(now, claim.asked);
      this.claiming += claim.claimed.length;
    });
    this.claimTurn = turn.catch(() => undefined);
    await turn;
    const due = claim.claimed;
    if (due.length === 0) return;
    for (const execution of due) execution.start(now, this.id);
    await this.executionRepository.saveClaimed(due, this.leaseFrom(now));
    for (const execution of due) this.metrics.transitioned(execution);
  }

  private launch(execution: Execution): void {
    let markRecorded = () => {};
    const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
    const run: Running = {
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
      .run(this.requestFor(execution), (output) => {
        run.output = output;
        run.outputDirty = true;
      })
      .catch((error: unknown): CommandOutcome => {
        this.logger.error({ ...this.idsOf(execution.id), msg: `The command runner failed: ${String(error)}` });
        const output = run.output ?? { stdout: '', stderr: '', truncated: false };
        return { code: null, signal: null, error: String(error), timedOut: false, killed: false, output };
      })
      .then((outcome) => {
        run.hasExited = true;
        const action = run.stoppedBy ?? actionFor(outcome, execution.timeoutSeconds);
        this.finished.push({ run, output: outcome.output, action });
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

  private recorded(run: Running, execution = run.execution): void {
    this.logger.log({
      ...this.idsOf(execution.id),
      status: execution.status,
      exitCode: execution.exitCode,
      msg: `${execution.status}${execution.errorMessage ? `: ${execution.errorMessage}` : ''}`,
    });
    this.settle(run);
  }

  private settle(run: Running): void {
    this.running.delete(run.execution.id);
    run.markRecorded();
  }

  private async heartbeat(): Promise<void> {
    const ids = [...this.running.keys()];
    try {
      const { renewed, held } = await this.executionRepository.renewLeases(
        this.id,
        ids,
        this.leaseFrom(this.clock.now()),
      );
      // a row held by a writer kept its old lease: normally this worker's own cycle recording an
      // ended command, which needs no lease; a command still running does
      const lapsing = held.filter((id) => this.running.get(id)?.hasExited === false);
      if (lapsing.length === 0) this.lastHeartbeat = Date.now();
      else this.logger.warn(`Leases not renewed: another transaction holds ${lapsing.join(', ')}`);
      await this.registry.beat(this.id, this.running.size, this.clock.now());
      const ours = new Set([...renewed, ...held]);
      for (const id of ids) {
        if (!ours.has(id) && this.running.has(id)) {
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
    }
    // the next beat may come too late: stop now if the leases could run out before it, since
    // another node then fails these executions and starts their retries, and the two must not overlap
    if (Date.now() - this.lastHeartbeat + this.config.heartbeatSeconds * 1000 >= this.config.leaseSeconds * 1000) {
      for (const id of ids) this.runner.kill(id);
    }
  }

  /** What running commands printed since the last flush, in one statement. */
  private async flushOutputs(): Promise<void> {
    const dirty = [...this.running.values()].filter((run) => run.outputDirty && run.output && !run.hasExited);
    if (dirty.length === 0) return;
    for (const run of dirty) run.outputDirty = false;
    const snapshots = dirty.map((run) => ({ executionId: run.execution.id, output: run.output! }));
    await this.outputs.saveAll(snapshots, this.clock.now()).catch(() => {
      for (const run of dirty) run.outputDirty = true;
    });
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
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const ORBIT_VERSION = '0.1.0';
