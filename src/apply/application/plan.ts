import type { FieldChange } from '../../shared/application/field-changes.js';
import { ConflictError, InvalidArgumentError } from '../../shared/domain/domain-errors.js';

/**
 * What an apply does to one entry: `adopt` takes over a job made by other means (from then on
 * `--prune` may delete it), with its changes if any.
 */
export const PLAN_ACTIONS = ['create', 'update', 'adopt', 'unchanged', 'delete'] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

export interface PlanItem {
  /** The section of the file: `channels`, `jobs`. */
  section: string;
  name: string;
  action: PlanAction;
  /** The fields an update changes; empty for the other actions. */
  changes: FieldChange[];
}

/** Where a file applies, and for whom. */
export interface ApplyScope {
  /**
   * The team the file describes: what it creates goes to this team, and it is compared with this
   * team's resources only (another team's are neither changed nor deleted).
   */
  team: string;
  /** The teams whose jobs the caller sees (undefined: every team's): what a job's triggers may name. */
  visible?: readonly string[];
  /** Whether to delete what an earlier apply made in the team that the file no longer names. */
  prune: boolean;
  /** The name of the caller, who deletes what a prune deletes. */
  actor: string;
}

/** One section of an orbit file: the resources of one kind, by name. */
export abstract class ApplySection {
  /** Its key in the file; sections apply in the order of ApplyService's list. */
  abstract readonly key: string;
  /** Makes the team's resources match `entries` (validated shapes, by name) and says what it did. */
  abstract apply(entries: Readonly<Record<string, object>>, scope: ApplyScope): Promise<PlanItem[]>;
  /**
   * The stored resources of `teams` (undefined: every team's) as entries of the file, by name:
   * what applies back unchanged.
   */
  abstract current(teams?: readonly string[]): Promise<Record<string, object>>;
}

/** Runs the work of one entry; a refusal names the entry: `jobs.nightly: cronExpression …`. */
export async function forEntry<T>(section: string, name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const where = `${section}.${name}`;
    if (error instanceof InvalidArgumentError) {
      throw new InvalidArgumentError(`${where}: ${error.message}`, `${where}${error.field ? `.${error.field}` : ''}`);
    }
    if (error instanceof ConflictError) throw new ConflictError(`${where}: ${error.message}`);
    throw error;
  }
}

/**
 * Runs the work of each entry in turn, as forEntry does, and refuses them together: one entry's
 * mistake does not hide the next one's. The refusals are thrown once every entry was tried; the
 * apply's transaction then rolls back what the others wrote.
 */
export async function forEachEntry<E, T>(
  section: string,
  entries: Readonly<Record<string, E>>,
  work: (name: string, entry: E) => Promise<T>,
): Promise<T[]> {
  const done: T[] = [];
  const refused: InvalidArgumentError[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    try {
      done.push(await forEntry(section, name, () => work(name, entry)));
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      refused.push(error);
    }
  }
  if (refused.length > 0) {
    throw new InvalidArgumentError(refused.map((error) => error.message).join('; '), refused[0]!.field);
  }
  return done;
}

/** Each name once: keys that trim to the same name would be one resource written twice. */
export function uniqueNames(section: string, keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    const name = key.trim();
    if (seen.has(name)) throw new InvalidArgumentError(`${section}.${name}: named twice`, `${section}.${name}`);
    seen.add(name);
  }
}

/**
 * Makes a job or a channel in the file's team. Names are unique across teams, and the file sees
 * only its team's: a name taken is another team's, a 409 that says no more of it than that.
 */
export async function madeUnlessTaken<T>(kind: 'job' | 'channel', name: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (error) {
    if (error instanceof ConflictError && error.field === 'name') {
      throw new ConflictError(
        `the name '${name}' is taken by a ${kind} of another team (${kind} names are unique across teams)`,
        'name',
      );
    }
    throw error;
  }
}
