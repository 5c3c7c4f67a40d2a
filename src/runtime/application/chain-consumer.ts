import { Injectable, Logger } from '@nestjs/common';
import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { Execution } from '../../executions/domain/execution.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { defaultValuesOf } from '../../jobs/domain/job-parameters.js';
import type { TriggerOutcome } from '../../jobs/domain/job-triggers.js';
import { Clock } from '../../shared/domain/clock.js';

/** The consumer's name in event_cursors. */
export const CHAINS_CONSUMER = 'chains';

/** A run's final outcome: a failure counts once no retry follows it (the last attempt's). */
function finalOutcome(event: OrbitEvent): TriggerOutcome | null {
  if (event.executionId === null) return null;
  if (event.type === 'execution.succeeded') return 'SUCCEEDED';
  if (event.type === 'execution.cancelled') return 'CANCELLED';
  if (event.type === 'execution.failed' && !event.retryQueued) return 'FAILED';
  return null;
}

/**
 * Turns the final outcomes of a batch of stream events into the chained runs they trigger,
 * inside the consumer's transaction (see EventConsumers): the runs commit with the cursor's
 * move or not at all. `(job, triggered_by)` is unique for chained runs and the insert skips a
 * taken one, so an outcome gives each downstream job one run, whatever happens to the
 * consumer. A paused (disabled) downstream job is not triggered, as it is not scheduled.
 */
@Injectable()
export class ChainConsumer {
  private readonly logger = new Logger(ChainConsumer.name);

  constructor(
    private readonly clock: Clock,
    private readonly jobs: JobsService,
    private readonly executions: ExecutionRepository,
  ) {}

  /** Answers how many runs it queued. */
  async handle(batch: readonly OrbitEvent[]): Promise<number> {
    const outcomes = batch.flatMap((event) => {
      const outcome = finalOutcome(event);
      return outcome ? [{ event, outcome }] : [];
    });
    if (outcomes.length === 0) return 0;
    const upstreamNames = await this.jobs.namesOf([...new Set(outcomes.map(({ event }) => event.jobId))]);
    const downstream = await this.jobs.triggeredAfter([...new Set(upstreamNames.values())]);
    if (downstream.length === 0) return 0;
    const now = this.clock.now();
    const runs: Execution[] = [];
    for (const { event, outcome } of outcomes) {
      const upstream = upstreamNames.get(event.jobId);
      for (const job of downstream) {
        if (!job.enabled) continue;
        if (!job.triggers.some((trigger) => trigger.after === upstream && trigger.on.includes(outcome))) continue;
        runs.push(
          Execution.forJob(job, now, {
            trigger: 'CHAIN',
            upstream: { executionId: event.executionId!, status: outcome },
            parameters: defaultValuesOf(job.parameters),
          }),
        );
      }
    }
    const queued = await this.executions.insertAll(runs);
    if (queued > 0) this.logger.log(`Queued ${queued} chained run(s)`);
    return queued;
  }
}
