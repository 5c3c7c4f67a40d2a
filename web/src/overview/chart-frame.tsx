import type { ComponentChildren } from 'preact';
import type { Activity } from './activity';
import { clockTime, count, type Zone } from '../shared/format';

/** A chart's drawing, its highest value beside it and its time axis under it. */
export function ChartFrame(props: { top: number; activity: Activity; zone: Zone; children: ComponentChildren }) {
  return (
    <div class="chart-frame">
      <span class="chart-top" aria-hidden="true">
        {count(props.top)}
      </span>
      {props.children}
      <TimeAxis activity={props.activity} zone={props.zone} />
    </div>
  );
}

/** The first, middle and last bucket's start under the bars: enough to read any bar's time by eye. */
function TimeAxis({ activity, zone }: { activity: Activity; zone: Zone }) {
  const n = activity.outcomes.length;
  const ticks = [0, Math.floor(n / 2), n - 1].map((i) => activity.outcomes[i]!.at);
  return (
    <div class="chart-axis" aria-hidden="true">
      {ticks.map((at) => (
        <span key={at}>{clockTime(at, zone)}</span>
      ))}
    </div>
  );
}
