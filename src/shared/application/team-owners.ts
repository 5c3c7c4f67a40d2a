/** What a route's path parameter may name, whose team decides who sees it. */
export type Owned = 'job' | 'execution' | 'channel' | 'group';

/** Which team a job, a run (its job's), a channel or a concurrency group belongs to. */
export abstract class TeamOwners {
  /**
   * The owner's team; undefined when there is no such thing; null for a deleted job whose team
   * was deleted since (its history is seen by Orbit admins only).
   */
  abstract teamOf(owned: Owned, id: string): Promise<string | null | undefined>;
  /** Whether a team of this name exists. */
  abstract teamExists(name: string): Promise<boolean>;
}
