import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { AppliedJobs } from './applied-jobs.js';
import { ChannelsSection } from './channels-section.js';
import { JobsSection } from './jobs-section.js';
import { ApplyScope, ApplySection, PlanItem } from './plan.js';

/** An orbit file: entries by name, per section. */
export type OrbitFile = Readonly<Record<string, Readonly<Record<string, object>> | undefined>>;

/** Thrown out of a dry run's transaction, so that it rolls back what it did. */
class DryRun extends Error {
  constructor(readonly plan: PlanItem[]) {
    super('dry run');
  }
}

/**
 * Makes a team's resources match an orbit file in one transaction: all of it or none of it. A
 * dry run does the same work and rolls it back, so its plan is what the apply would do,
 * refusals included.
 */
@Injectable()
export class ApplyService {
  /** In the order they apply: what a job names exists before the job. */
  readonly sections: readonly ApplySection[];

  constructor(
    channels: ChannelsSection,
    jobs: JobsSection,
    private readonly applied: AppliedJobs,
    private readonly transactions: TransactionRunner,
  ) {
    this.sections = [channels, jobs];
  }

  async apply(file: OrbitFile, options: ApplyScope & { dryRun: boolean }): Promise<PlanItem[]> {
    const { dryRun, ...scope } = options;
    try {
      return await this.transactions.run(async () => {
        await this.applied.lock();
        const plan: PlanItem[] = [];
        for (const section of this.sections) plan.push(...(await section.apply(file[section.key] ?? {}, scope)));
        if (dryRun) throw new DryRun(plan);
        return plan;
      });
    } catch (error) {
      if (error instanceof DryRun) return error.plan;
      throw error;
    }
  }

  /**
   * The stored state of `teams` (undefined: every team's) as an orbit file: applied back to its
   * team, it changes nothing.
   */
  async current(teams?: readonly string[]): Promise<Record<string, Record<string, object>>> {
    const file: Record<string, Record<string, object>> = {};
    for (const section of this.sections) file[section.key] = await section.current(teams);
    return file;
  }
}
