import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { Clock } from '../../shared/domain/clock.js';
import { DEFAULT_TEAM } from '../../shared/domain/principal.js';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../shared/domain/domain-errors.js';
import { ConcurrencyGroup, ConcurrencyGroupInput } from '../domain/concurrency-group.js';
import { ConcurrencyGroupRepository } from './concurrency-group.repository.js';

/** Concurrency groups (admin): a limit shared by the runs of every job that names one. */
@Injectable()
export class ConcurrencyGroupsService {
  constructor(
    private readonly groups: ConcurrencyGroupRepository,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Makes the group in `team`. */
  async create(input: ConcurrencyGroupInput, team = DEFAULT_TEAM): Promise<ConcurrencyGroup> {
    const group = ConcurrencyGroup.create(input, this.clock.now(), team);
    await this.groups.insert(group);
    return group;
  }

  /** By name; of `teams` only, when given. */
  list(teams?: readonly string[]): Promise<ConcurrencyGroup[]> {
    return this.groups.all(teams);
  }

  async get(id: string): Promise<ConcurrencyGroup> {
    const group = await this.groups.findById(id);
    if (!group) throw new NotFoundError(`Concurrency group ${id} not found`);
    return group;
  }

  /**
   * A new limit applies to the next claims; a rename is refused while jobs name the group, and so
   * is a move to another team (`team`): the jobs that name it are of its team.
   */
  update(id: string, patch: Partial<ConcurrencyGroupInput>, team?: string): Promise<ConcurrencyGroup> {
    return this.transactions.run(async () => {
      const group = await this.get(id);
      const before = group.name;
      const moved = team !== undefined && team !== group.team;
      group.update(patch, this.clock.now());
      if (group.name !== before) await this.refuseWhileNamed(before, 'renamed');
      if (moved) {
        await this.refuseWhileNamed(before, `moved to the team ${team}`);
        group.moveTo(team, this.clock.now());
      }
      await this.groups.update(group);
      return group;
    });
  }

  /** Refused while jobs name it; runs already queued under it then run without its limit. */
  async remove(id: string): Promise<void> {
    await this.transactions.run(async () => {
      const group = await this.get(id);
      await this.refuseWhileNamed(group.name, 'deleted');
      await this.groups.remove(group);
    });
  }

  /** Throws a 400 naming `concurrencyGroup` unless the job's team has the group (then it stays locked until the transaction ends). */
  async check(name: string | null, team: string): Promise<void> {
    if (name !== null && !(await this.groups.exists(name, team))) {
      throw new InvalidArgumentError(
        `concurrencyGroup: the team ${team} has no concurrency group named '${name}'`,
        'concurrencyGroup',
      );
    }
  }

  private async refuseWhileNamed(name: string, what: string): Promise<void> {
    const jobs = await this.groups.jobsNaming(name);
    if (jobs.length > 0) {
      throw new ConflictError(`Concurrency group '${name}' cannot be ${what} while jobs name it: ${jobs.join(', ')}`);
    }
  }
}
