import { SlotEvidence, slotFates } from './slot-fates.js';

const at = (hhmm: string) => new Date(`2026-11-30T${hhmm}:00.000Z`);
const slots = ['10:01', '10:02', '10:03', '10:04'].map(at);

function evidence(overrides: Partial<SlotEvidence> = {}): SlotEvidence {
  return {
    slots,
    now: at('10:10'),
    job: { createdAt: at('09:00'), enabled: true, nextRunAt: at('10:11'), resumeAt: null },
    runs: [],
    slotEvents: [],
    pauseChanges: [],
    ...overrides,
  };
}
const fates = (e: SlotEvidence) => slotFates(e).map((s) => (s.reason ? `${s.fate}:${s.reason}` : s.fate));

describe('slotFates', () => {
  it('a past slot of which nothing is kept is unknown: no_record', () => {
    expect(fates(evidence())).toEqual(Array(4).fill('unknown:no_record'));
  });

  it('paused between a job.paused and the job.resumed after it', () => {
    const pauseChanges = [
      { type: 'job.paused', at: new Date('2026-11-30T10:01:30Z') },
      { type: 'job.resumed', at: new Date('2026-11-30T10:03:30Z') },
    ];
    expect(fates(evidence({ pauseChanges }))).toEqual(['unknown:no_record', 'paused', 'paused', 'unknown:no_record']);
  });

  it('before the first change kept, the job was the opposite of it (retention pruned the pause)', () => {
    const pauseChanges = [{ type: 'job.resumed', at: new Date('2026-11-30T10:02:30Z') }];
    expect(fates(evidence({ pauseChanges }))).toEqual(['paused', 'paused', 'unknown:no_record', 'unknown:no_record']);
  });

  it('with no change kept at all, the job was as it is now (created paused)', () => {
    const job = { createdAt: at('09:00'), enabled: false, nextRunAt: null, resumeAt: null };
    expect(fates(evidence({ job }))).toEqual(Array(4).fill('paused'));
  });

  it('a misfire episode that began before the window covers the slots up to its last one', () => {
    const slotEvents = [
      {
        type: 'slot.missed',
        at: at('10:03'),
        slot: at('09:50'),
        detail: {
          policy: 'SKIP',
          count: 13,
          countCapped: false,
          firstSlot: '2026-11-30T09:50:00.000Z',
          lastSlot: '2026-11-30T10:02:00.000Z',
          firedSlot: null,
        },
      },
    ];
    expect(fates(evidence({ slotEvents }))).toEqual([
      'missed:no_scheduler',
      'missed:no_scheduler',
      'unknown:no_record',
      'unknown:no_record',
    ]);
  });

  it('a late notice is shown with whatever became of the slot', () => {
    const slotEvents = [{ type: 'slot.late', at: at('10:02'), slot: at('10:01'), detail: { lateAfterSeconds: 30 } }];
    const runs = [{ id: 'r1', status: 'SUCCEEDED', scheduledFor: at('10:01') }];
    const [first] = slotFates(evidence({ slotEvents, runs }));
    expect(first).toMatchObject({
      fate: 'fired',
      execution: { id: 'r1', status: 'SUCCEEDED' },
      late: { at: at('10:02') },
    });
  });

  it('slots a scheduler has not handled yet are not_reached; those to come while paused until resumeAt are paused', () => {
    expect(fates(evidence({ now: at('10:10'), job: { ...evidence().job, nextRunAt: at('10:03') } }))).toEqual([
      'unknown:no_record',
      'unknown:no_record',
      'unknown:not_reached',
      'unknown:not_reached',
    ]);
    const job = { createdAt: at('09:00'), enabled: false, nextRunAt: null, resumeAt: at('10:03') };
    expect(fates(evidence({ now: at('10:00'), job }))).toEqual(['paused', 'paused', 'upcoming', 'upcoming']);
  });
});
