import { Injectable } from '@nestjs/common';
import { SlotHistory } from '../../events/application/slot-history.js';
import { ScheduledRuns } from '../../executions/application/scheduled-runs.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Clock } from '../../shared/domain/clock.js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { SlotRecord, slotFates } from '../domain/slot-fates.js';

/** A window holds at most this many slots: each costs a cron step (up to about 0.3 ms) and an index probe. */
export const TIMELINE_MAX_SLOTS = 1000;
/** Pause changes read in a window; a job toggled more often than this in one window shows the first ones. */
const PAUSE_CHANGES_LIMIT = 2000;

export interface Timeline {
  jobId: string;
  from: Date;
  to: Date;
  now: Date;
  slots: SlotRecord[];
}

@Injectable()
export class TimelineService {
  constructor(
    private readonly jobs: JobsService,
    private readonly runs: ScheduledRuns,
    private readonly history: SlotHistory,
    private readonly clock: Clock,
  ) {}

  /** The slots of the job's schedule (as it is now) in [from, to), each with its fate. */
  async timeline(jobId: string, from: Date, to: Date): Promise<Timeline> {
    if (from >= to) throw new InvalidArgumentError('from must be before to', 'from');
    const job = await this.jobs.get(jobId);
    const now = this.clock.now();
    // inside the job's window (startsAt, endsAt), as the scheduler fires them
    const slots = job.slotsIn(from, to, TIMELINE_MAX_SLOTS + 1);
    if (slots.length > TIMELINE_MAX_SLOTS) {
      throw new InvalidArgumentError(
        `The window from ${from.toISOString()} to ${to.toISOString()} holds more than ${TIMELINE_MAX_SLOTS} slots ` +
          `of this job's schedule (${job.cronExpression}); choose a shorter window`,
        'to',
      );
    }
    const [runs, slotEvents, missedBefore, pauseChanges] = await Promise.all([
      this.runs.forSlots(job.id, slots),
      this.history.aboutSlots(job.id, slots),
      this.history.missedBefore(job.id, from),
      this.history.pauseChanges(job.id, from, to, PAUSE_CHANGES_LIMIT),
    ]);
    const records = slotFates({
      slots,
      now,
      job: { createdAt: job.createdAt, enabled: job.enabled, nextRunAt: job.nextRunAt, resumeAt: job.resumeAt },
      runs,
      slotEvents: missedBefore ? [missedBefore, ...slotEvents] : slotEvents,
      pauseChanges,
    });
    return { jobId: job.id, from, to, now, slots: records };
  }
}
