import { EXECUTION_STATUSES, ExecutionStatus } from './execution-status.js';

/** The windows the Overview draws: the last hour by the minute, the last day by the hour. */
export const ACTIVITY_WINDOWS = {
  hour: { stepMs: 60_000, buckets: 60 },
  day: { stepMs: 3_600_000, buckets: 24 },
} as const;

export type ActivityWindow = keyof typeof ACTIVITY_WINDOWS;

/**
 * Consecutive buckets of `stepMs` each, whole steps since the epoch (whole minutes, whole UTC
 * hours), the last one holding `now`: it is still filling.
 */
export interface ActivityBuckets {
  since: Date;
  until: Date;
  stepMs: number;
  count: number;
}

export function activityBuckets(window: ActivityWindow, now: Date): ActivityBuckets {
  const { stepMs, buckets } = ACTIVITY_WINDOWS[window];
  const last = Math.floor(now.getTime() / stepMs) * stepMs;
  return {
    since: new Date(last - (buckets - 1) * stepMs),
    until: new Date(last + stepMs),
    stepMs,
    count: buckets,
  };
}

/** Runs created in a bucket (by its start), by what they are now. */
export interface OutcomeCount {
  bucket: Date;
  status: ExecutionStatus;
  runs: number;
}

export interface OutcomeBucket {
  at: Date;
  runs: Record<ExecutionStatus, number>;
}

/** Every bucket of the window with its runs by status, the buckets without a run at zero. */
export function outcomeBuckets(buckets: ActivityBuckets, counts: readonly OutcomeCount[]): OutcomeBucket[] {
  const filled = Array.from({ length: buckets.count }, (_, i) => ({
    at: bucketStart(buckets, i),
    runs: Object.fromEntries(EXECUTION_STATUSES.map((status) => [status, 0])) as Record<ExecutionStatus, number>,
  }));
  for (const count of counts) filled[inWindow(buckets, count.bucket)]!.runs[count.status] += count.runs;
  return filled;
}

/**
 * What changed in a bucket: runs that began to wait (+) or stopped waiting (-), began to run or
 * ended. The changes before the window are in its first bucket, so that it starts from the
 * level the window found.
 */
export interface LevelChange {
  bucket: Date;
  queued: number;
  running: number;
}

export interface LevelSample {
  /** The end of the bucket; for the one still filling, `now`. */
  at: Date;
  queued: number;
  running: number;
}

/** The number of runs waiting and running at the end of each bucket: the changes up to it, summed. */
export function levelSamples(buckets: ActivityBuckets, changes: readonly LevelChange[], now: Date): LevelSample[] {
  const byBucket = Array.from({ length: buckets.count }, () => ({ queued: 0, running: 0 }));
  for (const change of changes) {
    const sum = byBucket[inWindow(buckets, change.bucket)]!;
    sum.queued += change.queued;
    sum.running += change.running;
  }
  let queued = 0;
  let running = 0;
  return byBucket.map((sum, i) => {
    queued += sum.queued;
    running += sum.running;
    const end = bucketStart(buckets, i + 1);
    return { at: end > now ? now : end, queued, running };
  });
}

function bucketStart(buckets: ActivityBuckets, i: number): Date {
  return new Date(buckets.since.getTime() + i * buckets.stepMs);
}

/** The index of the bucket that starts at `start`. */
function inWindow(buckets: ActivityBuckets, start: Date): number {
  const i = (start.getTime() - buckets.since.getTime()) / buckets.stepMs;
  if (!Number.isInteger(i) || i < 0 || i >= buckets.count) {
    throw new RangeError(`${start.toISOString()} starts no bucket of the window`);
  }
  return i;
}
