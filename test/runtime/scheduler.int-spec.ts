import { randomUUID } from 'node:crypto';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import { Job, JobSettings } from '../../src/jobs/domain/job.js';
import { PassResult, SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const T0 = new Date('2026-11-30T10:00:00.000Z');
const BERLIN = 'Europe/Berlin';

/** A row of the executions table, as pg returns it (only the columns the tests read are typed). */
type ExecutionRow = { id: string; status: string; scheduled_for: Date; due_at: Date } & Record<string, unknown>;

/** One node's services plus the clock they all read. */
class Node {
  readonly jobs: JobsService;
  readonly executions: ExecutionsService;
  readonly scheduler: SchedulerService;

  constructor(
    readonly t: TestApp,
    readonly clock: FakeClock,
  ) {
    this.jobs = t.app.get(JobsService);
    this.executions = t.app.get(ExecutionsService);
    this.scheduler = t.app.get(SchedulerService);
  }

  createJob(cronExpression: string, settings: Partial<JobSettings> = {}): Promise<Job> {
    return storedJob(this.t, { command: 'echo tick', cronExpression, ...settings });
  }

  /** Sets the clock to `instant` and runs one scheduler pass there. */
  passAt(instant: Date): Promise<PassResult> {
    this.clock.set(instant);
    return this.scheduler.pass(this.clock.now());
  }

  async nextRunAt(jobId: string): Promise<Date | null> {
    return (await this.jobs.get(jobId)).nextRunAt;
  }

  /** Every execution of the job, oldest slot first. */
  async executionsOf(jobId: string): Promise<ExecutionRow[]> {
    const { rows } = await this.t.db.sql(
      'SELECT * FROM executions WHERE job_id = $1 ORDER BY scheduled_for NULLS LAST, created_at',
      [jobId],
    );
    return rows as ExecutionRow[];
  }

  async slotsOf(jobId: string): Promise<string[]> {
    return (await this.executionsOf(jobId)).map((e) => e.scheduled_for.toISOString());
  }

  /** Moves the clock from slot to slot (to the job's nextRunAt, then a pass) while the slot is before `until`. */
  async stepThrough(jobId: string, until: Date): Promise<void> {
    let previous = 0;
    for (let next = await this.nextRunAt(jobId); next && next < until; next = await this.nextRunAt(jobId)) {
      if (next.getTime() <= previous) throw new Error(`nextRunAt did not move on from ${next.toISOString()}`);
      previous = next.getTime();
      await this.passAt(next);
    }
  }
}

const plus = (instant: Date, ms: number) => new Date(instant.getTime() + ms);
const iso = (instants: Date[]) => instants.map((d) => d.toISOString());
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Real instants of the day, scanned every 15 minutes, whose local minute in `timezone` passes `matches`. */
function localMinutesMatching(
  day: { start: Date; end: Date },
  timezone: string,
  matches: (m: number) => boolean,
): Date[] {
  const minuteOf = new Intl.DateTimeFormat('en-US', { timeZone: timezone, minute: 'numeric' });
  const found: Date[] = [];
  for (let at = day.start; at < day.end; at = plus(at, 15 * MINUTE))
    if (matches(Number(minuteOf.format(at)))) found.push(at);
  return found;
}

function localHours(instants: Date[], timezone: string): string[] {
  const hourOf = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', hourCycle: 'h23' });
  return instants.map((d) => hourOf.format(d));
}

describe('the scheduler, driven pass by pass with a fake clock', () => {
  let clock: FakeClock;
  let t: TestApp | undefined;
  let n: Node;

  beforeEach(async () => {
    clock = new FakeClock(T0);
    t = await createTestApp({ role: 'all', init: false, clock });
    n = new Node(t, clock);
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  describe('slots', () => {
    it('queues one SCHEDULE execution per slot, due at the slot, the schedule lead before it: never earlier, never twice', async () => {
      const lead = t!.config.scheduleLeadMs;
      expect(lead).toBe(500);
      const job = await n.createJob('*/10 * * * * *', { command: 'echo slot', maxRetries: 2, timeoutSeconds: 30 });
      expect(job.nextRunAt).toEqual(plus(T0, 10 * SECOND));

      for (const k of [1, 2, 3]) {
        const slot = plus(T0, k * 10 * SECOND);
        const queuedAt = plus(slot, -lead);
        expect(await n.passAt(plus(queuedAt, -1))).toEqual({ jobs: 0, fired: 0 });
        expect(await n.executionsOf(job.id)).toHaveLength(k - 1);

        expect(await n.passAt(queuedAt)).toEqual({ jobs: 1, fired: 1 });
        const executions = await n.executionsOf(job.id);
        expect(executions).toHaveLength(k);
        expect(executions[k - 1]).toMatchObject({
          job_id: job.id,
          trigger: 'SCHEDULE',
          scheduled_for: slot,
          due_at: slot,
          created_at: queuedAt,
          status: 'QUEUED',
          attempt: 1,
          command: 'echo slot',
          max_retries: 2,
          timeout_seconds: 30,
          retry_of: null,
        });

        expect(await n.passAt(slot)).toEqual({ jobs: 0, fired: 0 });
        expect(await n.executionsOf(job.id)).toHaveLength(k);
        expect(await n.nextRunAt(job.id)).toEqual(plus(slot, 10 * SECOND));
      }
    });

    it('a lead covering several slots queues each of them once; the next slot is the first after the last queued', async () => {
      const job = await n.createJob('* * * * * *');
      const lead = t!.config.scheduleLeadMs;
      // a pass late by more than a second catches up, and reaches ahead as far as the lead
      expect(await n.passAt(plus(T0, 2 * SECOND + 1000 - lead))).toEqual({ jobs: 1, fired: 3 });
      expect(await n.slotsOf(job.id)).toEqual(iso([plus(T0, SECOND), plus(T0, 2 * SECOND), plus(T0, 3 * SECOND)]));
      expect(await n.nextRunAt(job.id)).toEqual(plus(T0, 4 * SECOND));
      expect(await n.passAt(plus(T0, 3 * SECOND))).toEqual({ jobs: 0, fired: 0 });
    });

    it.each(['FORBID', 'REPLACE'] as const)(
      '%s jobs fire at their slot, not ahead of it: what is still active is decided then',
      async (concurrencyPolicy) => {
        const job = await n.createJob('*/10 * * * * *', { concurrencyPolicy });
        const slot = plus(T0, 10 * SECOND);
        expect(await n.passAt(plus(slot, -1))).toEqual({ jobs: 0, fired: 0 });
        expect(await n.passAt(slot)).toEqual({ jobs: 1, fired: 1 });
        expect(await n.executionsOf(job.id)).toMatchObject([{ scheduled_for: slot, due_at: slot, created_at: slot }]);
      },
    );

    it('the loop next passes the lead before an ALLOW slot, and at a FORBID slot', async () => {
      const lead = t!.config.scheduleLeadMs;
      const passes = (n.scheduler as unknown as { passes(): Promise<Date | null> }).passes.bind(n.scheduler);
      await n.createJob('0 * * * * *', { concurrencyPolicy: 'FORBID' });
      expect(await passes()).toEqual(plus(T0, MINUTE));
      await n.createJob('0 * * * * *');
      expect(await passes()).toEqual(plus(T0, MINUTE - lead));
      await n.createJob('30 * * * * *', { concurrencyPolicy: 'REPLACE' });
      expect(await passes()).toEqual(plus(T0, 30 * SECOND));
    });
  });

  describe('daylight saving time in Europe/Berlin, 2026', () => {
    const DAYS = {
      // spring forward: 02:00 local jumps to 03:00, a 23-hour day
      spring: { start: new Date('2026-03-28T23:00:00Z'), end: new Date('2026-03-29T22:00:00Z') },
      // fall back: 03:00 local goes back to 02:00, a 25-hour day
      fall: { start: new Date('2026-10-24T22:00:00Z'), end: new Date('2026-10-25T23:00:00Z') },
    };

    /** Creates the job just before the local day starts, steps through the day, returns the slots that fired. */
    async function firedAcross(cron: string, day: { start: Date; end: Date }): Promise<{ job: Job; slots: Date[] }> {
      clock.set(plus(day.start, -SECOND));
      const job = await n.createJob(cron, { timezone: BERLIN });
      await n.stepThrough(job.id, day.end);
      const executions = await n.executionsOf(job.id);
      for (const e of executions) expect(e.due_at).toEqual(e.scheduled_for);
      return { job, slots: executions.map((e) => e.scheduled_for) };
    }

    /** Strictly increasing (so also distinct), and the real time between consecutive fires. */
    function gapsOf(slots: Date[]): number[] {
      const gaps = slots.slice(1).map((slot, i) => slot.getTime() - slots[i]!.getTime());
      expect(gaps.every((gap) => gap > 0)).toBe(true);
      return gaps;
    }

    it('a fixed time inside the spring gap (30 2 * * *) fires once, at the first instant after the gap', async () => {
      const { job, slots } = await firedAcross('30 2 * * *', DAYS.spring);
      expect(iso(slots)).toEqual(['2026-03-29T01:00:00.000Z']);
      expect(await n.nextRunAt(job.id)).toEqual(new Date('2026-03-30T00:30:00Z'));
    });

    it('a fixed time inside the fall overlap (30 2 * * *) fires once, at its first occurrence', async () => {
      const { job, slots } = await firedAcross('30 2 * * *', DAYS.fall);
      expect(iso(slots)).toEqual(['2026-10-25T00:30:00.000Z']);
      expect(await n.nextRunAt(job.id)).toEqual(new Date('2026-10-26T01:30:00Z'));
    });

    it.each([
      { day: 'spring' as const, fires: 23, twoOClocks: 0 },
      { day: 'fall' as const, fires: 25, twoOClocks: 2 },
    ])(
      'hourly (0 * * * *) fires $fires times on the $day day, one real hour apart, 02:00 local $twoOClocks times',
      async ({ day, fires, twoOClocks }) => {
        const { slots } = await firedAcross('0 * * * *', DAYS[day]);
        expect(slots).toHaveLength(fires);
        expect(gapsOf(slots).every((gap) => gap === HOUR)).toBe(true);
        expect(iso(slots)).toEqual(iso(localMinutesMatching(DAYS[day], BERLIN, (m) => m === 0)));
        expect(localHours(slots, BERLIN).filter((h) => h === '02')).toHaveLength(twoOClocks);
      },
    );

    it('every 30 minutes (*/30 * * * *) fires 50 times on the fall day, each real half hour once', async () => {
      const { slots } = await firedAcross('*/30 * * * *', DAYS.fall);
      expect(slots).toHaveLength(50);
      gapsOf(slots);
      expect(iso(slots)).toEqual(iso(localMinutesMatching(DAYS.fall, BERLIN, (m) => m % 30 === 0)));
    });
  });

  describe('misfires', () => {
    it.each([
      ['exactly 10 minutes', 0],
      ['10 minutes and 30 s', 30 * SECOND],
    ])(
      'RUN_ONCE (default): after a gap of %s, exactly one execution, for the most recent missed slot',
      async (_, extra) => {
        const job = await n.createJob('* * * * *');
        expect(job.misfirePolicy).toBe('RUN_ONCE');
        const latest = plus(job.nextRunAt!, 10 * MINUTE);
        const now = plus(latest, extra);
        expect(await n.passAt(now)).toEqual({ jobs: 1, fired: 1 });
        const executions = await n.executionsOf(job.id);
        expect(executions).toHaveLength(1);
        expect(executions[0]).toMatchObject({ scheduled_for: latest, due_at: latest, status: 'QUEUED' });
        expect((await n.nextRunAt(job.id))!.getTime()).toBeGreaterThan(now.getTime());
        expect(await n.passAt(now)).toEqual({ jobs: 0, fired: 0 });
      },
    );

    it('SKIP: after a 10-minute gap, no execution, and the schedule moves past now', async () => {
      const job = await n.createJob('* * * * *', { misfirePolicy: 'SKIP' });
      const now = plus(job.nextRunAt!, 10 * MINUTE);
      expect(await n.passAt(now)).toEqual({ jobs: 1, fired: 0 });
      expect(await n.executionsOf(job.id)).toEqual([]);
      const next = (await n.nextRunAt(job.id))!;
      expect(next.getTime()).toBeGreaterThan(now.getTime());
      expect(await n.passAt(next)).toEqual({ jobs: 1, fired: 1 });
      expect(await n.slotsOf(job.id)).toEqual([next.toISOString()]);
    });

    it('a short stall within the threshold catches up: every slot fires, oldest first', async () => {
      const job = await n.createJob('* * * * * *', { misfirePolicy: 'SKIP' });
      const first = job.nextRunAt!;
      expect(await n.passAt(plus(first, 3 * SECOND))).toEqual({ jobs: 1, fired: 4 });
      expect(await n.slotsOf(job.id)).toEqual(iso(range(4).map((i) => plus(first, i * SECOND))));
      expect(await n.nextRunAt(job.id)).toEqual(plus(first, 4 * SECOND));
    });

    it('a stall longer than the threshold (5 s) is a misfire: RUN_ONCE fires only the latest slot', async () => {
      const job = await n.createJob('* * * * * *');
      const now = plus(job.nextRunAt!, 6 * SECOND);
      expect(await n.passAt(now)).toEqual({ jobs: 1, fired: 1 });
      expect(await n.slotsOf(job.id)).toEqual([now.toISOString()]);
    });
  });

  describe('overlap (concurrencyPolicy)', () => {
    /** Fires the job's first slot and returns that execution's id. */
    async function fireFirst(job: Job): Promise<string> {
      expect(await n.passAt(job.nextRunAt!)).toEqual({ jobs: 1, fired: 1 });
      return (await n.executionsOf(job.id))[0]!.id;
    }
    const statuses = async (job: Job) => (await n.executionsOf(job.id)).map((e) => e.status);

    it('ALLOW: the next slot fires while the first execution is still QUEUED', async () => {
      const job = await n.createJob('* * * * *', { concurrencyPolicy: 'ALLOW' });
      await fireFirst(job);
      expect(await n.passAt((await n.nextRunAt(job.id))!)).toEqual({ jobs: 1, fired: 1 });
      expect(await statuses(job)).toEqual(['QUEUED', 'QUEUED']);
    });

    it('FORBID: slots are skipped while the first is QUEUED or RUNNING, and fire again once it finished', async () => {
      const job = await n.createJob('* * * * *', { concurrencyPolicy: 'FORBID' });
      const first = await fireFirst(job);
      const firstSlot = job.nextRunAt!;

      expect(await n.passAt(plus(firstSlot, MINUTE))).toEqual({ jobs: 1, fired: 0 });
      expect(await statuses(job)).toEqual(['QUEUED']);
      expect(await n.nextRunAt(job.id)).toEqual(plus(firstSlot, 2 * MINUTE));

      await n.executions.start(first);
      expect(await n.passAt(plus(firstSlot, 2 * MINUTE))).toEqual({ jobs: 1, fired: 0 });
      expect(await statuses(job)).toEqual(['RUNNING']);

      await n.executions.succeed(first, 0);
      expect(await n.passAt(plus(firstSlot, 3 * MINUTE))).toEqual({ jobs: 1, fired: 1 });
      expect(await n.slotsOf(job.id)).toEqual(iso([firstSlot, plus(firstSlot, 3 * MINUTE)]));
      expect(await statuses(job)).toEqual(['SUCCEEDED', 'QUEUED']);
    });

    it.each(['QUEUED', 'RUNNING'])(
      'REPLACE: a %s earlier execution is CANCELLED and the new one is QUEUED',
      async (state) => {
        const job = await n.createJob('* * * * *', { concurrencyPolicy: 'REPLACE' });
        const first = await fireFirst(job);
        if (state === 'RUNNING') await n.executions.start(first);
        const second = (await n.nextRunAt(job.id))!;
        expect(await n.passAt(second)).toEqual({ jobs: 1, fired: 1 });
        const [earlier, replacement] = await n.executionsOf(job.id);
        expect(earlier).toMatchObject({ id: first, status: 'CANCELLED', finished_at: second });
        expect(replacement).toMatchObject({ status: 'QUEUED', scheduled_for: second });
      },
    );
  });

  describe('edits take effect without a restart', () => {
    /** Passes at every minute in (from, from + minutes]; returns how many executions fired. */
    async function passEveryMinute(from: Date, minutes: number): Promise<number> {
      let fired = 0;
      for (const k of range(minutes)) fired += (await n.passAt(plus(from, (k + 1) * MINUTE))).fired;
      return fired;
    }

    it('disabling stops fires; re-enabling resumes from now, without a burst of the slots in between', async () => {
      const job = await n.createJob('* * * * *');
      const firstSlot = job.nextRunAt!;
      await n.passAt(firstSlot);
      clock.set(plus(firstSlot, 10 * SECOND));
      expect((await n.jobs.update(job.id, { enabled: false })).nextRunAt).toBeNull();
      expect(await passEveryMinute(firstSlot, 10)).toBe(0);

      clock.set(plus(firstSlot, 10 * MINUTE + 30 * SECOND));
      const resumed = (await n.jobs.update(job.id, { enabled: true })).nextRunAt;
      expect(resumed).toEqual(plus(firstSlot, 11 * MINUTE));
      expect(await n.passAt(clock.now())).toEqual({ jobs: 0, fired: 0 });
      expect(await n.passAt(resumed!)).toEqual({ jobs: 1, fired: 1 });
      expect(await n.slotsOf(job.id)).toEqual(iso([firstSlot, resumed!]));
    });

    it('changing cronExpression changes the next slot at once', async () => {
      const job = await n.createJob('0 * * * *');
      expect(job.nextRunAt).toEqual(plus(T0, HOUR));
      const updated = await n.jobs.update(job.id, { cronExpression: '7 * * * *' });
      expect(updated.nextRunAt).toEqual(plus(T0, 7 * MINUTE));
      expect(await n.passAt(plus(T0, 7 * MINUTE))).toEqual({ jobs: 1, fired: 1 });
      expect(await n.passAt(plus(T0, HOUR))).toEqual({ jobs: 0, fired: 0 });
      expect(await n.passAt(plus(T0, HOUR + 7 * MINUTE))).toEqual({ jobs: 1, fired: 1 });
      expect(await n.slotsOf(job.id)).toEqual(iso([plus(T0, 7 * MINUTE), plus(T0, HOUR + 7 * MINUTE)]));
    });

    it('a deleted job never fires again', async () => {
      const job = await n.createJob('* * * * *');
      await n.passAt(job.nextRunAt!);
      await n.jobs.remove(job.id, 'test');
      expect(await passEveryMinute(job.nextRunAt!, 10)).toBe(0);
      expect(await n.passAt(plus(job.nextRunAt!, HOUR))).toEqual({ jobs: 0, fired: 0 });
      const executions = await n.executionsOf(job.id);
      expect(executions.map((e) => e.status)).toEqual(['CANCELLED']);
    });

    it('a job created disabled never fires', async () => {
      const job = await n.createJob('* * * * * *', { enabled: false });
      expect(job.nextRunAt).toBeNull();
      expect(await passEveryMinute(T0, 5)).toBe(0);
      expect(await n.passAt(plus(T0, 30 * SECOND))).toEqual({ jobs: 0, fired: 0 });
      expect(await n.executionsOf(job.id)).toEqual([]);
    });
  });
});

describe('two scheduler nodes on one database', () => {
  let db: TestDatabase;
  let clock: FakeClock;
  const nodes: Node[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    clock = new FakeClock(T0);
    for (const _ of range(2)) nodes.push(new Node(await createTestApp({ role: 'all', init: false, clock, db }), clock));
  });
  afterAll(async () => {
    for (const node of nodes) await node.t.close();
    await db?.drop();
  });

  it('passing at the same instants, they fire exactly one execution per (job, slot), none missing', async () => {
    const [a, b] = nodes as [Node, Node];
    const jobs: Job[] = [];
    for (const i of range(20)) jobs.push(await (i % 2 ? a : b).createJob('* * * * * *'));
    const slots = range(30).map((i) => plus(T0, (i + 1) * SECOND));

    let fired = 0;
    for (const slot of slots) {
      clock.set(slot);
      const results = await Promise.all([a.scheduler.pass(slot), b.scheduler.pass(slot), a.scheduler.pass(slot)]);
      fired += results.reduce((sum, r) => sum + r.fired, 0);
    }

    expect(fired).toBe(jobs.length * slots.length);
    const { rows } = await db.sql(`SELECT count(*)::int AS n FROM executions WHERE trigger = 'SCHEDULE'`);
    expect(rows[0].n).toBe(jobs.length * slots.length);
    for (const job of jobs) expect(await a.slotsOf(job.id)).toEqual(iso(slots));
  });

  it('the database itself stores no second SCHEDULE execution of one (job, slot), until the first is deleted', async () => {
    const [a] = nodes as [Node];
    const job = await a.createJob('*/5 * * * * *');
    const slot = job.nextRunAt!;
    await a.passAt(slot);
    const [fired] = await a.executionsOf(job.id);

    const {
      command,
      max_retries: maxRetries,
      timeout_seconds: timeoutSeconds,
    } = (await db.sql('SELECT * FROM executions WHERE id = $1', [fired!.id])).rows[0];
    const insertRun = async (id: string) =>
      (
        await db.sql(
          `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
             scheduled_for, due_at, created_at)
           VALUES ($1, $2, $3, $4, $5, 'QUEUED', 1, 'SCHEDULE', $6, $6, now()) RETURNING id`,
          [id, job.id, command, maxRetries, timeoutSeconds, slot],
        )
      ).rows;
    expect(await insertRun(randomUUID())).toEqual([]);
    const ledger = () => db.sql('SELECT execution_id FROM execution_slots WHERE job_id = $1', [job.id]);
    expect((await ledger()).rows).toEqual([{ execution_id: fired!.id }]);

    // a node working from a stale view of the job inserts nothing either
    const late = Execution.forJob(job, slot, { trigger: 'SCHEDULE', scheduledFor: slot, dueAt: slot });
    await expect(a.t.app.get(ExecutionRepository).insertAll([late])).resolves.toBe(0);
    expect(await a.executionsOf(job.id)).toHaveLength(1);

    // deleting the run (retention, a job's deletion) releases its slot
    await db.sql('DELETE FROM executions WHERE id = $1', [fired!.id]);
    expect((await ledger()).rows).toEqual([]);
    const refired = randomUUID();
    expect(await insertRun(refired)).toEqual([{ id: refired }]);
    expect((await ledger()).rows).toEqual([{ execution_id: refired }]);
  });
});
