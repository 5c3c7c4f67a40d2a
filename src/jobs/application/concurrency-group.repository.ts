import { ConcurrencyGroup } from '../domain/concurrency-group.js';

/** Persistence port of concurrency groups; writes are conditional on the version read. */
export abstract class ConcurrencyGroupRepository {
  /** Throws ConflictError when the name is taken. */
  abstract insert(group: ConcurrencyGroup): Promise<void>;
  abstract update(group: ConcurrencyGroup): Promise<void>;
  abstract remove(group: ConcurrencyGroup): Promise<void>;
  /** Inside a transaction, locked for update. */
  abstract findById(id: string): Promise<ConcurrencyGroup | null>;
  /** Every group, by name (there are few); of `teams` only, when given. */
  abstract all(teams?: readonly string[]): Promise<ConcurrencyGroup[]>;
  /** Whether the team has a group of this name; inside a transaction it stays share-locked, so it cannot go meanwhile. */
  abstract exists(name: string, team: string): Promise<boolean>;
  /** The names of the live jobs that name the group. */
  abstract jobsNaming(name: string): Promise<string[]>;
}
