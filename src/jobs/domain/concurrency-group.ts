import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { groupNameOf, PLACEMENT_LIMITS } from './job-placement.js';

export interface ConcurrencyGroupProps {
  id: string;
  name: string;
  /** The team that owns the group: only its jobs name it, and its admins manage it. */
  team: string;
  /** At most this many runs of the group's jobs RUNNING at once, across every worker. */
  limit: number;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

export type ConcurrencyGroupInput = Pick<ConcurrencyGroupProps, 'name' | 'limit'>;

/** A limit shared by every job that names the group. */
export class ConcurrencyGroup {
  private constructor(private props: ConcurrencyGroupProps) {}

  static create(input: ConcurrencyGroupInput, now: Date, team = DEFAULT_TEAM): ConcurrencyGroup {
    return new ConcurrencyGroup({
      ...ConcurrencyGroup.validate(input),
      id: randomUUID(),
      team,
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
  }

  static restore(props: ConcurrencyGroupProps): ConcurrencyGroup {
    return new ConcurrencyGroup({ ...props });
  }

  update(patch: Partial<ConcurrencyGroupInput>, now: Date): void {
    const { name, limit } = this.props;
    this.props = {
      ...this.props,
      ...ConcurrencyGroup.validate({ name, limit, ...withoutUndefined(patch) }),
      updatedAt: now,
    };
  }

  /** Gives the group to another team (whose jobs may then name it). */
  moveTo(team: string, now: Date): void {
    if (team === this.props.team) return;
    this.props = { ...this.props, team, updatedAt: now };
  }

  persisted(): void {
    this.props.version += 1;
  }

  toProps(): ConcurrencyGroupProps {
    return { ...this.props };
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get team(): string {
    return this.props.team;
  }
  get version(): number {
    return this.props.version;
  }

  private static validate(input: ConcurrencyGroupInput): ConcurrencyGroupInput {
    const range = PLACEMENT_LIMITS.groupLimit;
    const { limit } = input;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < range.min || limit > range.max) {
      throw new InvalidArgumentError(`limit must be an integer from ${range.min} to ${range.max}`, 'limit');
    }
    return { name: groupNameOf(input.name, 'name'), limit };
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
