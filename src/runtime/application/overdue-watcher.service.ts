import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { EventLog } from '../../events/application/event-log.js';
import { AppendedEvent } from '../../events/domain/orbit-event.js';
import { ExecutionRepository, slotKey } from '../../executions/application/execution.repository.js';
import { JobRepository } from '../../jobs/application/job.repository.js';
import { dueLateSlots } from '../../jobs/domain/late-watch.js';
import { BackgroundLoop } from '../../shared/application/background-loop.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';

/** Watches (late) and runs (long-running) one transaction handles at most; a full batch is followed at once. */
const BATCH = 200;

export interface OverdueSweep {
  /** `slot.late` events appended. */
  late: number;
  /** `execution.long_running` events appended. */
  longRunning: number;
}

/**
 * On every node with the runtime, every ORBIT_POLL_INTERVAL_MS: appends `slot.late` for each
 * slot of a watched job (lateAfterSeconds) that had no started run by its deadline, and
 * `execution.long_running` for each run past its maxDurationSeconds. It judges slots from the
 * job's schedule, so a slot no scheduler fired is late too: the switch that tells nobody ran.
 * Each batch is one transaction that appends the events and moves what they were judged from
 * (the watch's slot, the run's flag) under the rows' locks, so nodes share the work (SKIP
 * LOCKED) and every slot and run is told once, whatever crashes.
 */
@Injectable()
export class OverdueWatcherService {
  private readonly logger = new Logger(OverdueWatcherService.name);
  readonly loop: BackgroundLoop;

  constructor(
    config: OrbitConfig,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobRepository,
    private readonly executions: ExecutionRepository,
    private readonly events: EventLog,
  ) {
    const cadence = { everyMs: config.pollIntervalMs };
    this.loop = new BackgroundLoop('Overdue watch', () => this.sweep(), cadence, this.logger);
  }

  /** One sweep at `now`: batch after batch until one is not full. */
  async sweep(now: Date = this.clock.now()): Promise<OverdueSweep> {
    const result: OverdueSweep = { late: 0, longRunning: 0 };
    for (let watched = BATCH; watched === BATCH;) {
      const [judged, late] = await this.lateBatch(now);
      watched = judged;
      result.late += late;
    }
    for (let told = BATCH; told === BATCH;) {
      told = await this.longRunningBatch(now);
      result.longRunning += told;
    }
    return result;
  }

  /** Answers the watches it judged and the late events it appended. */
  private lateBatch(now: Date): Promise<[number, number]> {
    return this.transactions.run(async () => {
      const watches = await this.jobs.lockDueLateWatches(now, BATCH);
      const verdicts = watches.map((watch) => ({ watch, ...dueLateSlots(watch, now) }));
      const judged = verdicts.flatMap(({ watch, slots }) => slots.map((slot) => ({ jobId: watch.jobId, ...slot })));
      const started = await this.executions.startedInTime(judged);
      const late: AppendedEvent[] = judged
        .filter((slot) => !started.has(slotKey(slot.jobId, slot.slot)))
        .map((slot) => ({
          type: 'slot.late',
          at: slot.deadline,
          jobId: slot.jobId,
          slot: slot.slot,
          detail: { lateAfterSeconds: (slot.deadline.getTime() - slot.slot.getTime()) / 1000 },
        }));
      await this.events.append(late);
      await this.jobs.moveLateWatches(verdicts.map(({ watch, next }) => ({ jobId: watch.jobId, next })));
      return [watches.length, late.length];
    });
  }

  /** Answers the long-running events it appended. */
  private longRunningBatch(now: Date): Promise<number> {
    return this.transactions.run(async () => {
      const runs = await this.executions.noticeLongRunning(now, BATCH);
      await this.events.append(
        runs.map((run) => ({
          type: 'execution.long_running',
          at: new Date(run.startedAt!.getTime() + run.maxDurationSeconds! * 1000),
          jobId: run.jobId,
          executionId: run.id,
          attempt: run.attempt,
          workerId: run.workerId,
          detail: { maxDurationSeconds: run.maxDurationSeconds },
        })),
      );
      return runs.length;
    });
  }
}
