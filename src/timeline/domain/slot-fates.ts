/**
 * What became of each slot of a job's schedule in a window, told from what the scheduler left
 * behind: the execution that fired it, the slot events it appended (a FORBID skip, a misfire
 * episode, a late start), and the job's pauses. Pure: the records come in, the fates go out.
 */
export const SLOT_FATES = ['fired', 'skipped', 'missed', 'paused', 'upcoming', 'unknown'] as const;
export type SlotFate = (typeof SLOT_FATES)[number];

/**
 * Why a slot was missed (`no_scheduler`: no scheduler ran at its time), or why its fate is
 * unknown: `before_created` (the job did not exist yet), `not_reached` (past, but no scheduler
 * has handled it yet), `no_record` (nothing kept about it: aged out by retention, or from
 * before the schedule last changed).
 */
export const SLOT_REASONS = ['no_scheduler', 'before_created', 'not_reached', 'no_record'] as const;
export type SlotReason = (typeof SLOT_REASONS)[number];

export interface RunRef {
  id: string;
  status: string;
}

/** A misfire episode as its slot.missed event's detail tells it. */
export interface MissedEpisode {
  policy: string;
  count: number;
  countCapped: boolean;
  firstSlot: string;
  lastSlot: string;
  firedSlot: string | null;
}

export interface SlotRecord {
  slot: Date;
  fate: SlotFate;
  reason: SlotReason | null;
  /** fired: the execution of the slot. */
  execution: RunRef | null;
  /** skipped: the run that was active then (FORBID). */
  activeExecution: RunRef | null;
  /** missed: the episode the slot belongs to. */
  missed: MissedEpisode | null;
  /** Whatever the fate: the slot.late notice when one was written (no run had started in time). */
  late: { at: Date; detail: Record<string, unknown> | null } | null;
}

export interface SlotEvidence {
  slots: readonly Date[];
  now: Date;
  job: { createdAt: Date; enabled: boolean; nextRunAt: Date | null; resumeAt: Date | null };
  runs: readonly { id: string; status: string; scheduledFor: Date }[];
  /** slot.* events about the slots, and the misfire episode that began before the window, if any. */
  slotEvents: readonly { type: string; at: Date; slot: Date | null; detail: Record<string, unknown> | null }[];
  /** job.paused / job.resumed, oldest first, including the last before and the first after the window. */
  pauseChanges: readonly { type: string; at: Date }[];
}

export function slotFates(evidence: SlotEvidence): SlotRecord[] {
  const { now, job } = evidence;
  const runs = new Map(evidence.runs.map((run) => [run.scheduledFor.getTime(), { id: run.id, status: run.status }]));
  const skips = new Map<number, RunRef>();
  const lates = new Map<number, SlotRecord['late']>();
  const episodes: { from: number; to: number; episode: MissedEpisode }[] = [];
  for (const event of evidence.slotEvents) {
    if (!event.slot) continue;
    const detail = event.detail ?? {};
    if (event.type === 'slot.skipped') {
      skips.set(event.slot.getTime(), { id: String(detail.activeExecutionId), status: String(detail.activeStatus) });
    } else if (event.type === 'slot.late') {
      lates.set(event.slot.getTime(), { at: event.at, detail: event.detail });
    } else if (event.type === 'slot.missed') {
      const episode: MissedEpisode = {
        policy: String(detail.policy),
        count: Number(detail.count),
        countCapped: detail.countCapped === true,
        firstSlot: String(detail.firstSlot),
        lastSlot: String(detail.lastSlot),
        firedSlot: typeof detail.firedSlot === 'string' ? detail.firedSlot : null,
      };
      episodes.push({ from: Date.parse(episode.firstSlot), to: Date.parse(episode.lastSlot), episode });
    }
  }
  const pausedAt = pauseHistory(evidence.pauseChanges, !job.enabled);

  return evidence.slots.map((slot) => {
    const t = slot.getTime();
    const record: SlotRecord = {
      slot,
      fate: 'unknown',
      reason: null,
      execution: null,
      activeExecution: null,
      missed: null,
      late: lates.get(t) ?? null,
    };
    const run = runs.get(t);
    const skip = skips.get(t);
    const episode = episodes.find((e) => e.from <= t && t <= e.to)?.episode;
    if (run) return { ...record, fate: 'fired', execution: run };
    if (skip) return { ...record, fate: 'skipped', activeExecution: skip };
    if (episode) return { ...record, fate: 'missed', reason: 'no_scheduler', missed: episode };
    if (slot > now) {
      const pausedThen = !job.enabled && (job.resumeAt === null || slot < job.resumeAt);
      return { ...record, fate: pausedThen ? 'paused' : 'upcoming' };
    }
    if (slot < job.createdAt) return { ...record, reason: 'before_created' };
    if (pausedAt(slot)) return { ...record, fate: 'paused' };
    if (job.enabled && job.nextRunAt && slot >= job.nextRunAt) return { ...record, reason: 'not_reached' };
    return { ...record, reason: 'no_record' };
  });
}

/**
 * Whether the job was paused at an instant, asked in ascending order: by the last change at or
 * before it; before the first change known, the opposite of that change; with no change kept
 * at all, as it is now.
 */
function pauseHistory(changes: readonly { type: string; at: Date }[], pausedNow: boolean): (at: Date) => boolean {
  let last = -1;
  return (at) => {
    while (last + 1 < changes.length && changes[last + 1]!.at <= at) last++;
    const known = changes[last] ?? changes[0];
    if (!known) return pausedNow;
    return last >= 0 ? known.type === 'job.paused' : known.type === 'job.resumed';
  };
}
