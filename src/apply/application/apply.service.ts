import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';
import { AppliedJobs } from './applied-jobs.js';
import { ChannelsSection } from './channels-section.js';
import { JobsSection } from './jobs-section.js';
import { ApplySection, PlanItem } from './plan.js';

/** An orbit file: entries by name, per section. */
export type OrbitFile = Readonly<Record<string, Readonly<Record<string, object>> | undefined>>;

/** Thrown out of a dry run's transaction, so that it rolls back what it did. */
class DryRun extends Error {
  constructor(readonly plan: PlanItem[]) {
    super('dry run');
  }
}

/**
 * Makes Orbit match an orbit file in one transaction: all of it or none of it. A dry run does
 * the same work and rolls it back, so its plan is what the apply would do, refusals included.
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

  /** `actor`: the name of the token that applies it. */
  async apply(file: OrbitFile, options: { dryRun: boolean; prune: boolean; actor: string }): Promise<PlanItem[]> {
    try {
      return await this.transactions.run(async () => {
        await this.applied.lock();
        const plan: PlanItem[] = [];
        for (const section of this.sections)
          plan.push(...(await section.apply(file[section.key] ?? {}, options.prune, options.actor)));
        if (options.dryRun) throw new DryRun(plan);
        return plan;
      });
    } catch (error) {
      if (error instanceof DryRun) return error.plan;
      throw error;
    }
  }

  /** The stored state as an orbit file: applied back, it changes nothing. */
  async current(): Promise<Record<string, Record<string, object>>> {
    const file: Record<string, Record<string, object>> = {};
    for (const section of this.sections) file[section.key] = await section.current();
    return file;
  }
}
