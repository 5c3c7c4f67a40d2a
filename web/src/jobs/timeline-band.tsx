import { useContext } from 'preact/hooks';
import type { components } from '../api/openapi';
import { count, dateTime, type Zone } from '../shared/format';
import { ZoneContext } from '../shared/time';

type Slot = components['schemas']['TimelineSlotResponse'];

/** A stretch of neighbouring slots of one fate (and, for runs, one outcome), drawn as one bar. */
interface Segment {
  fate: Slot['fate'];
  /** Fired slots: their runs' status. */
  outcome: string | undefined;
  first: Slot;
  last: Slot;
  slots: number;
  /** Where it starts and ends: from its first slot to the slot after its last, or the window's end. */
  start: number;
  end: number;
}

const key = (slot: Slot) => `${slot.fate}|${slot.execution?.status ?? ''}`;

/** The slots merged into stretches of equal fate: forty green minutes are one green bar. */
export function segmentsOf(slots: Slot[], to: string): Segment[] {
  const segments: Segment[] = [];
  slots.forEach((slot, i) => {
    const end = Date.parse(slots[i + 1]?.slot ?? to);
    const last = segments[segments.length - 1];
    if (last && key(last.first) === key(slot)) {
      last.last = slot;
      last.slots += 1;
      last.end = end;
    } else {
      const outcome = slot.execution?.status;
      segments.push({ fate: slot.fate, outcome, first: slot, last: slot, slots: 1, start: Date.parse(slot.slot), end });
    }
  });
  return segments;
}

const titleOf = (s: Segment, zone: Zone) =>
  `${dateTime(s.first.slot, zone)}${s.slots > 1 ? ` – ${dateTime(s.last.slot, zone)}` : ''}: ` +
  `${count(s.slots)} ${s.fate}${s.outcome ? `, ${s.outcome}` : ''}`;

/**
 * The window as one band: a bar per stretch of equal fate, placed by time. It repeats the list of
 * slots below it (which says the same in words), so it is hidden from screen readers.
 */
export function TimelineBand({ slots, from, to }: { slots: Slot[]; from: string; to: string }) {
  const zone = useContext(ZoneContext);
  const origin = Date.parse(from);
  const span = Date.parse(to) - origin;
  const percent = (at: number) => `${(Math.max(0, Math.min(span, at - origin)) / span) * 100}%`;
  return (
    <div class="timeline-band" aria-hidden="true">
      {segmentsOf(slots, to).map((s) => (
        <span
          key={s.first.slot}
          class={`segment fate-${s.fate}${s.outcome ? ` outcome-${s.outcome.toLowerCase()}` : ''}`}
          style={{ left: percent(s.start), right: `calc(100% - ${percent(s.end)})` }}
          title={titleOf(s, zone)}
        />
      ))}
    </div>
  );
}
