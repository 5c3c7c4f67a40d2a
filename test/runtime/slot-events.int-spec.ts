import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { SchedulerService } from '../../src/runtime/application/scheduler.service.js';
import { FakeClock } from '../support/fake-clock.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const T0 = new Date('2026-11-30T10:00:00.000Z');
const plus = (instant: Date, ms: number) => new Date(instant.getTime() + ms);

describe('the scheduler records what did not fire as planned, as slot events in its pass', () => {
  let clock: FakeClock;
  let t: TestApp;
  let scheduler: SchedulerService;

  beforeEach(async () => {
    clock = new FakeClock(T0);
    t = await createTestApp({ role: 'all', init: false, clock });
    scheduler = t.app.get(SchedulerService);
  });
  afterEach(() => t?.close());

  const passAt = (instant: Date) => {
    clock.set(instant);
    return scheduler.pass(instant);
  };
  const slotEventsOf = async (jobId: string) =>
    (
      await t.db.sql(
        `SELECT type, at, slot, detail, execution_id FROM events WHERE job_id = $1 AND type LIKE 'slot.%' ORDER BY seq`,
        [jobId],
      )
    ).rows;

  it('a FORBID skip is one slot.skipped at the slot, naming the run that was active and its status', async () => {
    const job = await storedJob(t, { cronExpression: '* * * * *', concurrencyPolicy: 'FORBID' });
    const first = job.nextRunAt!;
    await passAt(first);
    const [{ id: active }] = (await t.db.sql(`SELECT id FROM executions WHERE job_id = $1`, [job.id])).rows;
    await t.app.get(ExecutionsService).start(active);
    await passAt(plus(first, MINUTE));
    await passAt(plus(first, 2 * MINUTE));
    expect(await slotEventsOf(job.id)).toEqual(
      [1, 2].map((k) => ({
        type: 'slot.skipped',
        at: plus(first, k * MINUTE),
        slot: plus(first, k * MINUTE),
        detail: { activeExecutionId: active, activeStatus: 'RUNNING' },
        execution_id: null,
      })),
    );
  });

  it('a RUN_ONCE misfire is ONE slot.missed for the episode: its first and last missed slot, the count, the slot fired instead', async () => {
    const job = await storedJob(t, { cronExpression: '* * * * *' });
    const first = job.nextRunAt!;
    const now = plus(first, 10 * MINUTE + 30 * SECOND);
    expect(await passAt(now)).toEqual({ jobs: 1, fired: 1 });
    expect(await slotEventsOf(job.id)).toEqual([
      {
        type: 'slot.missed',
        at: now,
        slot: first,
        detail: {
          reason: 'no_scheduler',
          policy: 'RUN_ONCE',
          count: 10,
          countCapped: false,
          firstSlot: first.toISOString(),
          lastSlot: plus(first, 9 * MINUTE).toISOString(),
          firedSlot: plus(first, 10 * MINUTE).toISOString(),
        },
        execution_id: null,
      },
    ]);
    await passAt(plus(now, 40 * SECOND)); // the next slot fires on time: nothing more to tell
    expect(await slotEventsOf(job.id)).toHaveLength(1);
  });

  it('a SKIP misfire of a per-second job over an hour is still one event, its count capped', async () => {
    const job = await storedJob(t, { cronExpression: '* * * * * *', misfirePolicy: 'SKIP' });
    const first = job.nextRunAt!;
    expect(await passAt(plus(first, 60 * MINUTE))).toEqual({ jobs: 1, fired: 0 });
    const events = await slotEventsOf(job.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'slot.missed',
      slot: first,
      detail: {
        policy: 'SKIP',
        count: 101,
        countCapped: true,
        firstSlot: first.toISOString(),
        lastSlot: plus(first, 60 * MINUTE).toISOString(),
        firedSlot: null,
      },
    });
  });

  it('a pass that fires as planned appends nothing', async () => {
    const job = await storedJob(t, { cronExpression: '* * * * *', concurrencyPolicy: 'FORBID' });
    await passAt(job.nextRunAt!);
    expect(await slotEventsOf(job.id)).toEqual([]);
  });
});
