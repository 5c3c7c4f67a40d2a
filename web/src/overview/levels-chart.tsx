import type { Activity } from './activity';
import { ChartFrame } from './chart-frame';
import { clockTime, count, type Zone } from '../shared/format';

type Sample = Activity['levels'][number];

const VIEW = { width: 600, height: 100 } as const;
const LINES: Array<{ key: 'queued' | 'running'; label: string }> = [
  { key: 'queued', label: 'Waiting' },
  { key: 'running', label: 'Running' },
];

/** Now, and the highest with its time: what one reads off a line. */
function inWords(samples: readonly Sample[], key: 'queued' | 'running', label: string, zone: Zone): string {
  const now = samples[samples.length - 1]![key];
  const highest = samples.reduce((best, sample) => (sample[key] > best[key] ? sample : best), samples[0]!);
  return highest[key] === 0
    ? `${label}: none`
    : `${label}: ${count(now)} now, at most ${count(highest[key])} (at ${clockTime(highest.at, zone)})`;
}

/**
 * The runs due and waiting for a worker, and the runs running, at the end of each bucket: two
 * lines, told apart by their dashes as well as their colours; an image named by what it shows.
 */
export function LevelsChart({ activity, zone }: { activity: Activity; zone: Zone }) {
  const samples = activity.levels;
  const top = Math.max(1, ...samples.flatMap((sample) => [sample.queued, sample.running]));
  const slot = VIEW.width / samples.length;
  const y = (n: number) => VIEW.height - (n / top) * (VIEW.height - 2) - 1;
  const summary = LINES.map((line) => inWords(samples, line.key, line.label, zone)).join('. ');
  return (
    <figure class="chart levels-chart">
      <figcaption>
        <strong>Waiting and running</strong> at the end of each {activity.window === 'hour' ? 'minute' : 'hour'}
      </figcaption>
      <ChartFrame top={top} activity={activity} zone={zone}>
        <svg
          viewBox={`0 0 ${VIEW.width} ${VIEW.height}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`Runs waiting and running over time. ${summary}.`}
        >
          {LINES.map((line) => (
            <polyline
              key={line.key}
              class={`level level-${line.key}`}
              vector-effect="non-scaling-stroke"
              points={samples.map((sample, i) => `${(i + 1) * slot},${y(sample[line.key])}`).join(' ')}
            />
          ))}
        </svg>
      </ChartFrame>
      <ul class="legend">
        {LINES.map((line) => (
          <li key={line.key}>
            <span class={`swatch line level-${line.key}`} aria-hidden="true" />
            {inWords(samples, line.key, line.label, zone)}
          </li>
        ))}
      </ul>
    </figure>
  );
}
