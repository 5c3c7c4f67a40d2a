import type { Activity } from './activity';
import { clockTime, count, counted, type Zone } from '../shared/format';
import { Link, withQuery } from '../shared/router';
import { ChartFrame } from './chart-frame';

type Runs = Activity['outcomes'][number]['runs'];

/** The stack of a bar, bottom up. Runs that wait or run have no outcome yet: a segment of their own, on top. */
const SEGMENTS: Array<{ key: string; label: string; of: (runs: Runs) => number }> = [
  { key: 'succeeded', label: 'succeeded', of: (runs) => runs.SUCCEEDED },
  { key: 'failed', label: 'failed', of: (runs) => runs.FAILED },
  { key: 'cancelled', label: 'cancelled', of: (runs) => runs.CANCELLED },
  { key: 'unended', label: 'not ended yet', of: (runs) => runs.QUEUED + runs.RUNNING },
];

const VIEW = { width: 600, height: 140 } as const;
/** A failure stays a target one can point at, however many runs succeeded beside it. */
const LEAST_FAILED = 5;

const total = (runs: Runs) => SEGMENTS.reduce((sum, segment) => sum + segment.of(runs), 0);

/** The failed runs created in a window, as GET /executions lists them. */
export function failedRunsHref(from: string, before: string): string {
  return withQuery('/executions', { status: 'FAILED', createdFrom: from, createdBefore: before });
}

/**
 * Runs created in each bucket of the window, stacked by outcome, each failed segment a link to
 * the runs it counts. A screen reader gets the links by name and the numbers as a table.
 */
export function RunsChart({ activity, zone }: { activity: Activity; zone: Zone }) {
  const { outcomes } = activity;
  const stepMs = activity.stepSeconds * 1000;
  const unit = activity.window === 'hour' ? 'minute' : 'hour';
  const top = Math.max(1, ...outcomes.map((bucket) => total(bucket.runs)));
  const slot = VIEW.width / outcomes.length;
  const end = (at: string) => new Date(Date.parse(at) + stepMs).toISOString();
  const label = (at: string) => `${clockTime(at, zone)}–${clockTime(end(at), zone)}`;
  const sums = SEGMENTS.map((segment) => outcomes.reduce((sum, bucket) => sum + segment.of(bucket.runs), 0));
  const all = sums.reduce((a, b) => a + b, 0);
  const busy = outcomes.filter((bucket) => total(bucket.runs) > 0);
  const within = activity.window === 'hour' ? 'in the last hour' : 'in the last 24 hours';
  return (
    <figure class="chart runs-chart">
      <figcaption>
        <strong>Runs per {unit}</strong>, by outcome: {counted(all, 'run')} created {within};{' '}
        {SEGMENTS.map((segment, i) => `${count(sums[i]!)} ${segment.label}`).join(', ')}.
      </figcaption>
      <ChartFrame top={top} activity={activity} zone={zone}>
        <svg
          viewBox={`0 0 ${VIEW.width} ${VIEW.height}`}
          preserveAspectRatio="none"
          role="group"
          aria-label={`Runs per ${unit}, stacked by outcome; each failed part links to its runs`}
        >
          {outcomes.map((bucket, i) => {
            let y = VIEW.height;
            return (
              <g key={bucket.at}>
                <title>
                  {label(bucket.at)}: {counted(total(bucket.runs), 'run')}
                </title>
                {SEGMENTS.map((segment) => {
                  const n = segment.of(bucket.runs);
                  if (n === 0) return null;
                  const least = segment.key === 'failed' ? LEAST_FAILED : 1;
                  const height = Math.min(y, Math.max(least, (n / top) * VIEW.height));
                  y -= height;
                  const rect = (
                    <rect
                      class={`segment segment-${segment.key}`}
                      x={i * slot + slot * 0.1}
                      y={y}
                      width={slot * 0.8}
                      height={height}
                    />
                  );
                  return segment.key === 'failed' ? (
                    <Link
                      key={segment.key}
                      href={failedRunsHref(bucket.at, end(bucket.at))}
                      aria-label={`${counted(n, 'failed run')} created ${label(bucket.at)}`}
                    >
                      {rect}
                    </Link>
                  ) : (
                    rect
                  );
                })}
              </g>
            );
          })}
        </svg>
      </ChartFrame>
      <ul class="legend">
        {SEGMENTS.map((segment, i) => (
          <li key={segment.key}>
            <span class={`swatch segment-${segment.key}`} aria-hidden="true" />
            {segment.key === 'failed' && sums[i]! > 0 ? (
              <Link href={failedRunsHref(activity.since, activity.until)}>{`${count(sums[i]!)} failed`}</Link>
            ) : (
              `${count(sums[i]!)} ${segment.label}`
            )}
          </li>
        ))}
      </ul>
      {busy.length > 0 && (
        // a table is as wide as its cells, whatever its own width: its box hides it
        <div class="visually-hidden">
          <table>
            <caption>
              Runs per {unit} by outcome, the {unit}s with runs
            </caption>
            <thead>
              <tr>
                <th scope="col">{unit === 'minute' ? 'Minute' : 'Hour'}</th>
                {SEGMENTS.map((segment) => (
                  <th key={segment.key} scope="col">
                    {segment.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {busy.map((bucket) => (
                <tr key={bucket.at}>
                  <th scope="row">{label(bucket.at)}</th>
                  {SEGMENTS.map((segment) => (
                    <td key={segment.key}>{count(segment.of(bucket.runs))}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}
