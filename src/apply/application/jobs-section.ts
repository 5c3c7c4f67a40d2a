import { Injectable } from '@nestjs/common';
import { decodeCursor } from '../../shared/application/page.js';
import { Clock } from '../../shared/domain/clock.js';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { Job, JobSettings, NewJob } from '../../jobs/domain/job.js';
import { AppliedJobs } from './applied-jobs.js';
import { changedFields } from '../../shared/application/field-changes.js';
import { ApplyScope, ApplySection, forEachEntry, forEntry, madeUnlessTaken, PlanItem, uniqueNames } from './plan.js';

const PAGE = 500;

/** A job of the file: every setting but the name, which is its key. */
type JobEntry = Omit<NewJob, 'name'>;

/**
 * The jobs of the file, by name. A job's settings are what the file says, the domain's
 * defaults for what it leaves out: the same rules as POST /jobs, so a field added there is a
 * field of the file. The file is compared with the jobs of its team only: another team's job is
 * never changed, adopted or deleted, and a name one has is refused as taken (names are unique
 * across teams).
 */
@Injectable()
export class JobsSection extends ApplySection {
  readonly key = 'jobs';

  constructor(
    private readonly jobs: JobsService,
    private readonly applied: AppliedJobs,
    private readonly clock: Clock,
  ) {
    super();
  }

  async apply(entries: Readonly<Record<string, JobEntry>>, scope: ApplyScope): Promise<PlanItem[]> {
    const { team, prune, actor } = scope;
    uniqueNames(this.key, Object.keys(entries));
    const stored = new Map((await this.all([team])).map((job) => [job.name, job]));
    const managed = await this.applied.ids();
    const named = new Set<string>();
    const items: PlanItem[] = await forEachEntry(this.key, entries, async (key, entry) => {
      const desired = Job.create({ ...entry, name: key }, this.clock.now()).settings();
      named.add(desired.name);
      const job = stored.get(desired.name);
      if (!job) {
        await this.applied.mark((await this.create(desired, scope)).id);
        return { section: this.key, name: desired.name, action: 'create', changes: [] };
      }
      const changes = changedFields(job.settings(), desired);
      if (changes.length > 0) await this.jobs.update(job.id, desired, undefined, scope.visible);
      const adopted = !managed.has(job.id);
      if (adopted) await this.applied.mark(job.id);
      const action = adopted ? 'adopt' : changes.length > 0 ? 'update' : 'unchanged';
      return { section: this.key, name: desired.name, action, changes };
    });
    if (prune) {
      for (const job of stored.values()) {
        if (named.has(job.name) || !managed.has(job.id)) continue;
        await forEntry(this.key, job.name, () => this.jobs.remove(job.id, actor));
        await this.applied.unmark(job.id);
        items.push({ section: this.key, name: job.name, action: 'delete', changes: [] });
      }
    }
    return items;
  }

  /** Each job of `teams` with the settings that differ from the defaults (name, command and schedule always). */
  async current(teams?: readonly string[]): Promise<Record<string, object>> {
    const defaults: Partial<JobSettings> = Job.create(
      { name: 'defaults', command: 'true', cronExpression: '@daily' },
      this.clock.now(),
    ).settings();
    const always = new Set(['command', 'cronExpression']);
    const jobs = (await this.all(teams)).sort((a, b) => a.name.localeCompare(b.name));
    return Object.fromEntries(
      jobs.map((job) => {
        const { name, ...settings } = job.settings();
        const kept = changedFields(defaults, settings).map((change) => change.field);
        const fields = Object.entries(settings).filter(([field]) => always.has(field) || kept.includes(field));
        return [name, Object.fromEntries(fields)];
      }),
    );
  }

  /**
   * A job in the scope's team; a name another team's job has is a 409 that says no more of it
   * than that the name is taken.
   */
  private create(settings: JobSettings, { team, visible }: ApplyScope): Promise<Job> {
    return madeUnlessTaken('job', settings.name, () => this.jobs.create(settings, team, visible));
  }

  /** The live jobs of `teams` (undefined: every team's). */
  private async all(teams?: readonly string[]): Promise<Job[]> {
    const jobs: Job[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.jobs.list({ teams }, { limit: PAGE, cursor: cursor ? decodeCursor(cursor) : undefined });
      jobs.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return jobs;
  }
}
