import { Injectable, Logger } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Page, PageRequest } from '../../shared/application/page.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  StaleWriteError,
} from '../../shared/domain/domain-errors.js';
import { matches } from '../../shared/domain/labels.js';
import { WorkerRegistry } from '../../workers/application/worker-registry.js';
import { OrbitConfig } from '../../config/orbit-config.js';
import { defaultValuesOf, parameterValuesFor } from '../../jobs/domain/job-parameters.js';
import { checkBackfillSize, checkBackfillWindow, RUN_REQUEST_LIMITS, runAtOf } from '../domain/run-requests.js';
import { Execution, ExecutionChange, JobConfiguration, NewExecution } from '../domain/execution.js';
import { retryDelayMs } from '../domain/retry-backoff.js';
import { ExecutionMetrics } from './execution-metrics.js';
import { ExecutionRepository } from './execution.repository.js';
import { ExecutionFilter, ExecutionReadModel } from './execution-read-model.js';
import { ExecutionOutput, ExecutionOutputRepository } from './execution-output.repository.js';
import { RetrySettings } from './retry-settings.js';

/** What a caller may ask of a manual run. */
export interface RunRequest {
  parameters?: Record<string, unknown>;
  runAt?: Date;
}

export interface BackfillResult {
  slots: number;
  queued: number;
  skipped: number;
}

/** How often an action is re-read and re-applied when another writer changed the execution first. */
const STALE_WRITE_ATTEMPTS = 5;

/** Executions a worker's cycle claimed and started, and the lease they run under. */
export interface Started {
  executions: Execution[];
  leaseExpiresAt: Date | null;
}

@Injectable()
export class ExecutionsService {
  private readonly logger = new Logger(ExecutionsService.name);

  constructor(
    private readonly executions: ExecutionRepository,
    private readonly reads: ExecutionReadModel,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly retrySettings: RetrySettings,
    private readonly outputs: ExecutionOutputRepository,
    private readonly metrics: ExecutionMetrics,
    private readonly workers: WorkerRegistry,
    private readonly config: OrbitConfig,
  ) {}

  /**
   * A manual run, now or due at `runAt`, with `parameters` checked against the job's
   * declaration: allowed while the job is disabled, since `enabled` governs only the schedule.
   */
  async create(jobId: string, request: RunRequest = {}): Promise<Execution> {
    return this.transactions.run(async () => {
      const job = await this.jobs.get(jobId, 'share');
      const now = this.clock.now();
      const runs = await this.runsOf(job, now, {
        parameters: parameterValuesFor(job.parameters, request.parameters),
        dueAt: request.runAt ? runAtOf(request.runAt, now) : now,
      });
      await this.executions.insertAll(runs);
      return runs[0]!;
    });
  }

  /**
   * What a fire of `job` queues: one run, or for `runOn: all` one run pinned to each live worker
   * that matches its selector and is not draining (one unpinned run, which waits for the first
   * such worker, when there is none).
   */
  async runsOf(job: JobConfiguration, now: Date, options: NewExecution = {}): Promise<Execution[]> {
    if (job.runOn !== 'all') return [Execution.forJob(job, now, options)];
    const live = await this.workers.recent(new Date(now.getTime() - this.config.leaseSeconds * 1000));
    const targets = live.filter((worker) => !worker.draining && matches(job.workerSelector, worker.labels));
    if (targets.length === 0) return [Execution.forJob(job, now, options)];
    return targets.map((worker) => Execution.forJob(job, now, { ...options, pinnedWorker: worker.id }));
  }

  /**
   * One run (trigger BACKFILL) per slot of the job's schedule in [from, to), due now, each
   * with the defaults. A slot that has a run already (scheduled or backfilled) is skipped by
   * the unique slot key, not by a read, so a backfill racing the scheduler or another backfill
   * never doubles a slot. Under FORBID or REPLACE a backfill waits for no active run: it is
   * refused while one is queued or running.
   */
  async backfill(jobId: string, from: Date, to: Date): Promise<BackfillResult> {
    return this.transactions.run(async () => {
      const job = await this.jobs.get(jobId, 'share');
      const now = this.clock.now();
      checkBackfillWindow(from, to, now);
      if (job.cronExpression === null) {
        throw new InvalidArgumentError(`Job ${job.name} has no schedule: it has no slots to backfill`, 'from');
      }
      const slots = job.slotsIn(from, to, RUN_REQUEST_LIMITS.backfillCountLimit + 1);
      checkBackfillSize(slots.length);
      if (job.concurrencyPolicy !== 'ALLOW') {
        const [active] = await this.executions.findActiveByJob(job.id);
        if (active) {
          throw new ConflictError(
            `Job ${job.name} has an execution ${active.status} (${active.id}) and its policy is ${job.concurrencyPolicy}: backfill once it is done`,
          );
        }
      }
      const parameters = defaultValuesOf(job.parameters);
      const runs = slots.map((slot) =>
        Execution.forJob(job, now, { trigger: 'BACKFILL', scheduledFor: slot, dueAt: now, parameters }),
      );
      const queued = await this.executions.insertAll(runs);
      return { slots: slots.length, queued, skipped: slots.length - queued };
    });
  }

  async get(id: string): Promise<Execution> {
    const execution = await this.executions.findById(id);
    if (!execution) throw new NotFoundError(`Execution ${id} not found`);
    return execution;
  }

  /** The execution as the API shows it, serialized (see ExecutionReadModel). */
  async getJson(id: string): Promise<string> {
    const json = await this.reads.findJson(id);
    if (json === null) throw new NotFoundError(`Execution ${id} not found`);
    return json;
  }

  listJson(filter: ExecutionFilter, page: PageRequest): Promise<Page<string>> {
    return this.reads.listJson(filter, page);
  }

  /** The runner actions of an outside runner (start, succeed, fail): never on a run a worker holds. */
  start(id: string): Promise<Execution> {
    return this.act(id, (execution, now) => {
      execution.requireOutsideRunnerMay('start');
      execution.start(now);
    });
  }

  succeed(id: string, exitCode: number): Promise<Execution> {
    return this.act(id, (execution, now) => {
      execution.requireOutsideRunnerMay('succeed');
      execution.succeed(exitCode, now);
    });
  }

  fail(id: string, exitCode: number, errorMessage: string): Promise<Execution> {
    return this.act(id, (execution, now) => {
      execution.requireOutsideRunnerMay('fail');
      execution.fail(exitCode, errorMessage, now);
    });
  }

  /** A caller's cancel; `actor`, the name of its token. */
  cancel(id: string, actor: string): Promise<Execution> {
    return this.act(id, (execution, now) => execution.cancel(now, { by: 'caller', actor }));
  }

  /**
   * Loads the execution, lets the domain apply the action and persists it conditionally. When
   * another writer got there first, the action is re-applied to the fresh state, so the loser
   * gets the domain's own refusal (409) and nothing is overwritten. A failure with retries left
   * queues the next attempt in the same transaction.
   */
  async act(id: string, action: ExecutionChange): Promise<Execution> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactions.run(async () => {
          const execution = await this.get(id);
          await this.apply(execution, action);
          return execution;
        });
      } catch (error) {
        if (!(error instanceof StaleWriteError) || attempt >= STALE_WRITE_ATTEMPTS) throw error;
        this.logger.debug(`Execution ${id} changed while being written; re-reading (attempt ${attempt})`);
      }
    }
  }

  /** Inside the caller's transaction: the domain applies the action, the row follows, a retry is queued if due. */
  async apply(execution: Execution, action: ExecutionChange): Promise<void> {
    const [stale] = await this.applyAll([{ execution, action }]);
    if (stale) throw new StaleWriteError(`Execution ${stale.id} was changed by someone else; read it again`);
  }

  /**
   * `apply` for many executions, in one statement each for the rows and for the retries. A
   * domain refusal throws before anything is written; the executions someone else changed
   * first are answered, unwritten, for the caller to read again.
   *
   * `started` are executions the caller's transaction claimed and started: the same statement
   * writes them, with their lease (one statement per worker cycle). They were locked by the
   * claim, so none can have changed: one that did throws.
   */
  async applyAll(
    changes: { execution: Execution; action: ExecutionChange }[],
    started: Started = { executions: [], leaseExpiresAt: null },
  ): Promise<Execution[]> {
    const now = this.clock.now();
    for (const { execution, action } of changes) action(execution, now);
    const saved = [...changes.map((change) => change.execution), ...started.executions];
    const stale = new Set(await this.executions.saveAll(saved, started.leaseExpiresAt));
    const lost = started.executions.find((execution) => stale.has(execution));
    if (lost) throw new StaleWriteError(`Execution ${lost.id} was changed while being claimed`);
    const landed = changes.filter((change) => !stale.has(change.execution));
    const written = landed.map((change) => change.execution);
    const { baseMs, maxMs } = this.retrySettings;
    const retries = written
      .filter((execution) => execution.retryable)
      .map((execution) => execution.retry(now, retryDelayMs(execution.attempt, baseMs, maxMs)));
    await this.executions.insertAll(retries);
    for (const { execution, action } of landed) this.metrics.transitioned(execution, action.cause);
    for (let i = 0; i < retries.length; i++) this.metrics.retryQueued();
    return [...stale];
  }

  /** What the command printed so far (the last ORBIT_OUTPUT_LIMIT_KB of each stream). */
  async output(id: string): Promise<ExecutionOutput> {
    await this.get(id);
    return (await this.outputs.find(id)) ?? { stdout: '', stderr: '', truncated: false };
  }
}
