import { useContext, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import type { components } from '../api/openapi';
import { useLive } from '../live/use-live';
import { Problem } from '../shared/ui';
import { ZoneContext } from '../shared/time';
import { LevelsChart } from './levels-chart';
import { RunsChart } from './runs-chart';

export type Activity = components['schemas']['ActivityResponse'];
type Window = Activity['window'];

const WINDOWS: Array<[Window, string]> = [
  ['hour', 'Last hour'],
  ['day', 'Last day'],
];

/** A picture drawn this often: its buckets are minutes, its numbers need not follow every event. */
const POLL_MS = 15_000;

/** The Overview's pictures: runs over time by outcome, and the runs waiting and running, in one window. */
export function ActivitySection() {
  const [window, setWindow] = useState<Window>('hour');
  const zone = useContext(ZoneContext);
  const activity = useLive(() => ok(api.GET('/overview/activity', { params: { query: { window } } })), [window], {
    pollMs: POLL_MS,
  });
  const data = activity.data;
  return (
    <section aria-labelledby="activity" class="activity">
      <div class="activity-head">
        <h2 id="activity">Activity</h2>
        <div role="group" aria-label="Window" class="segmented">
          {WINDOWS.map(([value, label]) => (
            <button key={value} type="button" aria-pressed={window === value} onClick={() => setWindow(value)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <Problem error={activity.error} />
      {data && (
        <div class="activity-charts">
          <RunsChart activity={data} zone={zone} />
          <LevelsChart activity={data} zone={zone} />
        </div>
      )}
    </section>
  );
}
