import { useContext } from 'preact/hooks';
import type { components } from '../api/openapi';
import { api, ok, type Job, type OrbitEvent } from '../api/client';
import { count, counted, dateTime, type Zone } from '../shared/format';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Problem, Status, Time } from '../shared/ui';
import { ZoneContext } from '../shared/time';
import { TimelineBand } from './timeline-band';
import './timeline.css';

type Slot = components['schemas']['TimelineSlotResponse'];

const MINUTE = 60_000;

/** The default window: a quarter of it ahead of now; short enough for a per-second job to stay below the API's bound. */
function defaultSpanMs(job: Job): number {
  const perSecond = (job.cronExpression ?? '').trim().split(/\s+/).length === 6;
  return perSecond ? 10 * MINUTE : 12 * 60 * MINUTE;
}

/** The window the address names (`from`, `to`), or the default one around now. */
function windowOf(job: Job, query: URLSearchParams): { from: string; to: string } {
  const from = query.get('from');
  const to = query.get('to');
  if (from && to) return { from, to };
  const span = defaultSpanMs(job);
  const now = Math.floor(Date.now() / MINUTE) * MINUTE;
  return { from: new Date(now - (span * 3) / 4).toISOString(), to: new Date(now + span / 4).toISOString() };
}

const REASONS: Record<string, string> = {
  no_scheduler: 'no scheduler ran at its time',
  before_created: 'before the job existed',
  not_reached: 'due, not handled by a scheduler yet',
  no_record: 'no record kept (aged out, or from before the schedule changed)',
};

/** What became of the slot, in words. */
function explain(slot: Slot, zone: Zone) {
  switch (slot.fate) {
    case 'fired':
      return (
        <>
          run{' '}
          <Link href={`/executions/${slot.execution!.id}`}>
            <Status status={slot.execution!.status} />
          </Link>
        </>
      );
    case 'skipped':
      return (
        <>
          FORBID: an earlier{' '}
          <Link href={`/executions/${slot.activeExecution!.id}`}>run was {slot.activeExecution!.status}</Link>
        </>
      );
    case 'missed': {
      const m = slot.missed!;
      const what =
        m.policy === 'RUN_ONCE' && m.firedSlot
          ? `collapsed into one run of ${dateTime(m.firedSlot, zone)} (RUN_ONCE)`
          : 'dropped (SKIP)';
      const slots = m.countCapped ? `${count(m.count)}+ slots` : counted(m.count, 'slot');
      return `${REASONS[slot.reason ?? 'no_scheduler']}; ${slots} ${what}`;
    }
    case 'paused':
      return 'the job was paused';
    case 'upcoming':
      return 'still to come';
    default:
      return REASONS[slot.reason ?? 'no_record'];
  }
}

/** Neighbours that tell the same thing are one row (a misfire episode, a pause, what is to come); runs stay apart. */
function rows(slots: Slot[]): Slot[][] {
  const groups: Slot[][] = [];
  const key = (s: Slot) =>
    s.fate === 'fired' || s.late
      ? null
      : `${s.fate}|${s.reason}|${s.activeExecution?.id ?? ''}|${s.missed?.firstSlot ?? ''}`;
  for (const slot of slots) {
    const last = groups[groups.length - 1];
    const k = key(slot);
    if (last && k !== null && key(last[0]!) === k) last.push(slot);
    else groups.push([slot]);
  }
  return groups;
}

/** The slots of the job in the window of the address, each with its fate in colour and in words. */
export function Timeline({ job, query }: { job: Job; query: URLSearchParams }) {
  const zone = useContext(ZoneContext);
  const { from, to } = windowOf(job, query);
  const timeline = useLive(
    () => ok(api.GET('/jobs/{id}/timeline', { params: { path: { id: job.id }, query: { from, to } } })),
    [job.id, from, to, job.updatedAt],
    { concerns: (event: OrbitEvent) => event.jobId === job.id },
  );
  const span = Date.parse(to) - Date.parse(from);
  const here = Object.fromEntries(query);
  const shifted = (by: number) =>
    withQuery(`/jobs/${job.id}`, {
      ...here,
      from: new Date(Date.parse(from) + by).toISOString(),
      to: new Date(Date.parse(to) + by).toISOString(),
    });
  const slots = timeline.data?.slots ?? [];
  const counts = slots.reduce<Record<string, number>>((c, s) => ({ ...c, [s.fate]: (c[s.fate] ?? 0) + 1 }), {});

  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <p>
        Each slot of the schedule from <Time iso={from} exact /> to <Time iso={to} exact />, and what became of it.
      </p>
      <nav aria-label="Timeline window" class="pager">
        <Link href={shifted(-span)}>Earlier</Link>
        <Link href={withQuery(`/jobs/${job.id}`, { ...here, from: undefined, to: undefined })}>Now</Link>
        <Link href={shifted(span)}>Later</Link>
      </nav>
      <Problem error={timeline.error} />
      {timeline.data && (
        <>
          <p class="timeline-counts">
            {slots.length === 0
              ? 'No slot in this window.'
              : Object.entries(counts)
                  .map(([fate, n]) => `${count(n)} ${fate}`)
                  .join(', ')}
          </p>
          {slots.length > 0 && <TimelineBand slots={slots} from={from} to={to} />}
          <ol class="timeline" aria-label="Slots">
            {rows(slots).map((group) => {
              const first = group[0]!;
              const last = group[group.length - 1]!;
              return (
                <li key={first.slot}>
                  <span class={`fate fate-${first.fate}`}>{first.fate}</span> <Time iso={first.slot} exact />
                  {group.length > 1 && (
                    <>
                      {' – '}
                      <Time iso={last.slot} exact /> ({count(group.length)} slots)
                    </>
                  )}
                  : {explain(first, zone)}
                  {first.late && <> · late: no run had started in time</>}
                </li>
              );
            })}
          </ol>
        </>
      )}
    </section>
  );
}
