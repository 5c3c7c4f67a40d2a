import type { ActivityBuckets, LevelChange, OutcomeCount } from '../domain/activity.js';

/**
 * A read model of this module: the runs of a window, counted by bucket from their stored
 * instants; of the runs of these teams' jobs only, when `teams` is given.
 */
export abstract class RunsActivity {
  /** The runs created in each bucket, by their status now. */
  abstract outcomes(buckets: ActivityBuckets, teams?: readonly string[]): Promise<OutcomeCount[]>;
  /** How many runs began and stopped waiting, and began and stopped running, in each bucket up to `now`. */
  abstract levelChanges(buckets: ActivityBuckets, now: Date, teams?: readonly string[]): Promise<LevelChange[]>;
}
