import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { Execution } from '../../executions/domain/execution.js';
import { JobRepository } from '../../jobs/application/job.repository.js';
import { Job } from '../../jobs/domain/job.js';
import { defaultValuesOf } from '../../jobs/domain/job-parameters.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { Wakeable, WakeLoop } from './wake-loop.js';

/**
 * Jobs handled per transaction; a larger backlog takes several passes. A pass costs three
 * statements whatever its size (a couple of hundred milliseconds for 2,000 jobs).
 */
export const JOBS_PER_PASS = 2000;
/**
 * Passes run side by side, each in its own transaction, locking disjoint jobs: a herd of
 * jobs due the same second is then written by more than one PostgreSQL backend at once.
 */
const LANES = 2;

export interface PassResult {
  jobs: number;
  fired: number;
}

/**
 * Fires due slots of enabled jobs. Any number of schedulers may run: each pass locks the
 * due jobs it handles (skipping those another node holds), and the unique (job, slot) key
 * makes a second fire of one slot impossible, whatever the timing.
 */
@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown, Wakeable {
  private readonly logger = new Logger(SchedulerService.name);
  private readonly loop: WakeLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobRepository,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly metrics: ExecutionMetrics,
  ) {
    this.loop = new WakeLoop('scheduler', () => this.passes(), config.pollIntervalMs, this.logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  /** Handles every due job, then tells when the next slot falls due. */
  private async passes(): Promise<Date | null> {
    const lane = async () => {
      while ((await this.pass()).jobs === JOBS_PER_PASS && !this.loop.stopping);
    };
    // every lane ends before the loop goes on (or stops), also when another one failed
    const failed = (await Promise.allSettled(Array.from({ length: LANES }, lane))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return this.jobs.earliestNextRun(this.config.scheduleLeadMs);
  }

  /**
   * One transaction over the due jobs at `now` (the clock's, unless a test passes one): the
   * fires of ALLOW jobs go in one insert, and all the jobs' next slots in one update. ALLOW jobs
   * fire up to the schedule lead ahead of their slots (their executions are due at the slot).
   * FORBID and REPLACE jobs fire at the slot, after a look at their active executions, one job at
   * a time.
   */
  pass(now: Date = this.clock.now()): Promise<PassResult> {
    const lead = this.config.scheduleLeadMs;
    const horizon = new Date(now.getTime() + lead);
    return this.transactions.run(async () => {
      const due = await this.jobs.lockDue(now, JOBS_PER_PASS, lead);
      const allowed: Execution[] = [];
      let fired = 0;
      for (const job of due) {
        const until = job.concurrencyPolicy === 'ALLOW' ? horizon : now;
        const plan = job.dueSlots(now, this.config.misfireThresholdSeconds * 1000, until);
        if (plan.missed > 0) {
          this.logger.warn({
            jobId: job.id,
            msg:
              `Job ${job.name}: ${plan.missed} slot(s) passed while no scheduler ran; ` +
              (plan.fire.length > 0
                ? `firing the most recent one once (${job.misfirePolicy})`
                : `skipped (${job.misfirePolicy})`),
          });
          if (plan.fire.length === 0) this.metrics.fireSkipped();
        }
        for (const slot of plan.fire) {
          if (job.concurrencyPolicy === 'ALLOW') allowed.push(this.scheduled(job, slot, now));
          else if (await this.fireGuarded(job, slot, now)) fired++;
        }
        // the next slot is the first one after the last fired (slots fired ahead lie after `now`)
        job.planFrom(plan.fire[plan.fire.length - 1] ?? now);
      }
      fired += await this.executionRepository.insertAll(allowed, { skipTakenSlots: true });
      await this.jobs.saveSchedules(due);
      return { jobs: due.length, fired };
    });
  }

  private scheduled(job: Job, slot: Date, now: Date): Execution {
    return Execution.forJob(job, now, {
      trigger: 'SCHEDULE',
      scheduledFor: slot,
      dueAt: job.dueAtFor(slot),
      parameters: defaultValuesOf(job.parameters),
    });
  }

  /** A fire of a FORBID or REPLACE job: it depends on the job's executions still active. */
  private async fireGuarded(job: Job, slot: Date, now: Date): Promise<boolean> {
    const active = await this.executionRepository.findActiveByJob(job.id);
    if (active.length > 0 && job.concurrencyPolicy === 'FORBID') {
      this.logger.log({
        jobId: job.id,
        executionId: active[0]!.id,
        msg: `Job ${job.name}: slot ${slot.toISOString()} skipped, the earlier execution is still ${active[0]!.status} (FORBID)`,
      });
      this.metrics.fireSkipped();
      return false;
    }
    for (const earlier of active) {
      this.logger.log({
        jobId: job.id,
        executionId: earlier.id,
        msg: `Job ${job.name}: cancelling the earlier execution for slot ${slot.toISOString()} (REPLACE)`,
      });
      await this.executions.apply(earlier, (e, at) => e.cancel(at));
    }
    return (await this.executionRepository.insertAll([this.scheduled(job, slot, now)], { skipTakenSlots: true })) === 1;
  }
}
