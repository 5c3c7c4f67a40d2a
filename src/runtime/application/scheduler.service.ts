import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionMetrics } from '../../executions/application/execution-metrics.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { ExecutionsService } from '../../executions/application/executions.service.js';
import { Execution } from '../../executions/domain/execution.js';
import { EventLog } from '../../events/application/event-log.js';
import { AppendedEvent } from '../../events/domain/orbit-event.js';
import { JobRepository } from '../../jobs/application/job.repository.js';
import { FirePlan, Job } from '../../jobs/domain/job.js';
import { defaultValuesOf } from '../../jobs/domain/job-parameters.js';
import { BackgroundLoop, Wakeable } from '../../shared/application/background-loop.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';

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
export class SchedulerService implements Wakeable {
  private readonly logger = new Logger(SchedulerService.name);
  /** Woken when jobs change; otherwise it sleeps until the next slot falls due, at most a poll interval. */
  readonly loop: BackgroundLoop;

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobRepository,
    private readonly executionRepository: ExecutionRepository,
    private readonly executions: ExecutionsService,
    private readonly metrics: ExecutionMetrics,
    private readonly events: EventLog,
  ) {
    this.loop = new BackgroundLoop(
      'scheduler pass',
      () => this.passes(),
      { pollMs: config.pollIntervalMs },
      this.logger,
    );
  }

  wake(): void {
    this.loop.wake();
  }

  /** Resumes the jobs whose resume instant came, handles every due job, then tells when the next slot falls due. */
  private async passes(): Promise<Date | null> {
    await this.resumePlanned();
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
   * a time. What did not fire as planned (a FORBID skip, a misfire) is recorded as slot events,
   * all of the pass's in one append.
   */
  pass(now: Date = this.clock.now()): Promise<PassResult> {
    const lead = this.config.scheduleLeadMs;
    const horizon = new Date(now.getTime() + lead);
    return this.transactions.run(async () => {
      const due = await this.jobs.lockDue(now, JOBS_PER_PASS, lead);
      const allowed: Execution[] = [];
      const notes: AppendedEvent[] = [];
      let fired = 0;
      for (const job of due) {
        const until = job.concurrencyPolicy === 'ALLOW' ? horizon : now;
        const plan = job.dueSlots(now, this.config.misfireThresholdSeconds * 1000, until);
        if (plan.missed) notes.push(this.misfired(job, plan, now));
        for (const slot of plan.fire) {
          if (job.concurrencyPolicy === 'ALLOW') allowed.push(...(await this.scheduled(job, slot, now)));
          else if (await this.fireGuarded(job, slot, now, notes)) fired++;
        }
        // the next slot is the first one after the last fired (slots fired ahead lie after `now`)
        job.planFrom(plan.fire[plan.fire.length - 1] ?? now);
      }
      fired += await this.executionRepository.insertAll(allowed);
      await this.jobs.saveSchedules(due);
      await this.events.append(notes);
      return { jobs: due.length, fired };
    });
  }

  /**
   * Paused jobs whose resume instant came resume, each by a versioned write (job.resumed, from
   * the job trigger), in one transaction. Once per wake, before the passes (so a slot at that
   * instant fires in them), not in each pass: a pass stays three statements.
   */
  resumePlanned(now: Date = this.clock.now()): Promise<void> {
    return this.transactions.run(async () => {
      for (const job of await this.jobs.lockResumable(now, JOBS_PER_PASS)) {
        job.resumeAsPlanned();
        await this.jobs.update(job);
        this.logger.log({
          jobId: job.id,
          msg: `Job ${job.name}: resumed as planned at ${job.updatedAt.toISOString()}`,
        });
      }
    });
  }

  private scheduled(job: Job, slot: Date, now: Date): Promise<Execution[]> {
    return this.executions.runsOf(job, now, {
      trigger: 'SCHEDULE',
      scheduledFor: slot,
      dueAt: job.dueAtFor(slot),
      parameters: defaultValuesOf(job.parameters),
    });
  }

  /** One slot.missed event for the episode, at its first slot: what was let go, and what fired instead. */
  private misfired(job: Job, plan: FirePlan, now: Date): AppendedEvent {
    const missed = plan.missed!;
    const instead = plan.fire[0] ?? null;
    this.logger.warn({
      jobId: job.id,
      msg:
        `Job ${job.name}: ${missed.count}${missed.countCapped ? '+' : ''} slot(s) passed while no scheduler ran; ` +
        (instead ? `firing the most recent one once (${job.misfirePolicy})` : `skipped (${job.misfirePolicy})`),
    });
    if (!instead) this.metrics.fireSkipped();
    return {
      type: 'slot.missed',
      at: now,
      jobId: job.id,
      slot: missed.first,
      detail: {
        reason: 'no_scheduler',
        policy: job.misfirePolicy,
        count: missed.count,
        countCapped: missed.countCapped,
        firstSlot: missed.first.toISOString(),
        lastSlot: missed.last.toISOString(),
        firedSlot: instead?.toISOString() ?? null,
      },
    };
  }

  /** A fire of a FORBID or REPLACE job: it depends on the job's executions still active. A skip is noted. */
  private async fireGuarded(job: Job, slot: Date, now: Date, notes: AppendedEvent[]): Promise<boolean> {
    const active = await this.executionRepository.findActiveByJob(job.id);
    if (active.length > 0 && job.concurrencyPolicy === 'FORBID') {
      const [blocking] = active as [Execution];
      this.logger.log({
        jobId: job.id,
        executionId: blocking.id,
        msg: `Job ${job.name}: slot ${slot.toISOString()} skipped, the earlier execution is still ${blocking.status} (FORBID)`,
      });
      this.metrics.fireSkipped();
      notes.push({
        type: 'slot.skipped',
        at: now,
        jobId: job.id,
        slot,
        detail: { activeExecutionId: blocking.id, activeStatus: blocking.status },
      });
      return false;
    }
    for (const earlier of active) {
      this.logger.log({
        jobId: job.id,
        executionId: earlier.id,
        msg: `Job ${job.name}: cancelling the earlier execution for slot ${slot.toISOString()} (REPLACE)`,
      });
      await this.executions.apply(earlier, (e, at) => e.cancel(at, { by: 'scheduler', actor: null }));
    }
    const runs = await this.scheduled(job, slot, now);
    return (await this.executionRepository.insertAll(runs)) > 0;
  }
}
