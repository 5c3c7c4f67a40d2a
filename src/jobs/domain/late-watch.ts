import { CronSchedule } from './cron-schedule.js';

/** At most this many slots of one job are judged in one pass; the rest follow in the next. */
export const LATE_SLOTS_PER_PASS = 100;

/** A job's late watch, as a watcher locked it: the next slot to judge, and the job's schedule and limit. */
export interface LateWatch {
  jobId: string;
  slot: Date;
  lateAfterSeconds: number;
  cronExpression: string;
  timezone: string;
}

/** What a pass judges of a watch: its slots whose deadline passed, each with it, and where the watch goes next. */
export interface LateVerdicts {
  slots: { slot: Date; deadline: Date }[];
  /** The next slot to judge and when it falls due; null when the schedule has no later slot. */
  next: { slot: Date; dueAt: Date } | null;
}

/**
 * The slots of `watch` whose deadline (the slot plus lateAfterSeconds) has passed at `now`, from
 * the watch's slot on, oldest first, at most LATE_SLOTS_PER_PASS. Computed from the schedule,
 * not from the runs: a slot no scheduler fired is judged as well (a dead-man switch).
 */
export function dueLateSlots(watch: LateWatch, now: Date): LateVerdicts {
  const lateMs = watch.lateAfterSeconds * 1000;
  const schedule = CronSchedule.parse(watch.cronExpression, watch.timezone);
  const lastDue = new Date(now.getTime() - lateMs);
  const slots =
    watch.slot <= lastDue ? [watch.slot, ...schedule.between(watch.slot, lastDue, LATE_SLOTS_PER_PASS - 1)] : [];
  const next = schedule.nextAfter(slots.at(-1) ?? new Date(watch.slot.getTime() - 1));
  return {
    slots: slots.map((slot) => ({ slot, deadline: new Date(slot.getTime() + lateMs) })),
    next: next ? { slot: next, dueAt: new Date(next.getTime() + lateMs) } : null,
  };
}
