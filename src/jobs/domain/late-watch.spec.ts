import { dueLateSlots, LATE_SLOTS_PER_PASS, LateWatch } from './late-watch.js';

const watch = (slot: string, cronExpression = '*/10 * * * *', lateAfterSeconds = 60): LateWatch => ({
  jobId: 'job-1',
  slot: new Date(slot),
  lateAfterSeconds,
  cronExpression,
  timezone: 'UTC',
});
const iso = (dates: { slot: Date }[]) => dates.map(({ slot }) => slot.toISOString());

describe('late watch', () => {
  it('judges every slot whose deadline passed, from the watch on, and moves to the first that has not', () => {
    const verdicts = dueLateSlots(watch('2026-12-01T10:00:00Z'), new Date('2026-12-01T10:21:00Z'));
    expect(iso(verdicts.slots)).toEqual([
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T10:10:00.000Z',
      '2026-12-01T10:20:00.000Z',
    ]);
    expect(verdicts.slots[0]!.deadline).toEqual(new Date('2026-12-01T10:01:00Z'));
    expect(verdicts.next).toEqual({ slot: new Date('2026-12-01T10:30:00Z'), dueAt: new Date('2026-12-01T10:31:00Z') });
  });

  it('a slot whose deadline has not come is not judged, and the watch stays on it', () => {
    const verdicts = dueLateSlots(watch('2026-12-01T10:00:00Z'), new Date('2026-12-01T10:00:59Z'));
    expect(verdicts.slots).toEqual([]);
    expect(verdicts.next?.slot).toEqual(new Date('2026-12-01T10:00:00Z'));
  });

  it(`after a long outage, at most ${LATE_SLOTS_PER_PASS} slots a pass, oldest first; the next pass goes on from there`, () => {
    const verdicts = dueLateSlots(watch('2026-12-01T00:00:00Z', '* * * * *'), new Date('2026-12-02T00:00:00Z'));
    expect(verdicts.slots).toHaveLength(LATE_SLOTS_PER_PASS);
    expect(verdicts.next?.slot).toEqual(new Date(Date.parse('2026-12-01T00:00:00Z') + LATE_SLOTS_PER_PASS * 60_000));
  });
});
