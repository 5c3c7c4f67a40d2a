import { useEffect, useRef, useState } from 'preact/hooks';
import { count, millis } from '../shared/format';
import { durationQuantiles } from './duration-quantiles';
import { useTheme } from '../shared/preferences';
import type { RecentRun } from './recent-runs';
import { runsInWords } from './recent-runs';

/**
 * The durations of a job's recent runs as a chart (uPlot, loaded with the first chart shown),
 * failures marked. The canvas is an image to a screen reader, named by what it shows in words.
 */
export function DurationChart({ runs }: { runs: readonly RecentRun[] }) {
  const plot = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
  // a canvas keeps the colours it was drawn in: a new theme draws it again
  const [theme] = useTheme();
  useEffect(() => {
    const target = plot.current;
    if (!target || runs.length === 0) return;
    let destroy: (() => void) | undefined;
    let stopped = false;
    import('./duration-plot').then(
      ({ drawDurations }) => {
        if (!stopped) destroy = drawDurations(target, runs, Math.max(320, target.clientWidth));
      },
      (error: Error) => setProblem(`The chart could not load: ${error.message}`),
    );
    return () => {
      stopped = true;
      destroy?.();
    };
  }, [runs, theme]);
  if (runs.length === 0) return <p>No run has ended yet.</p>;
  const quantiles = durationQuantiles(runs.flatMap((run) => (run.durationMs === null ? [] : [run.durationMs])));
  const lines = quantiles ? `p50 ${millis(quantiles.p50)} and p95 ${millis(quantiles.p95)}` : '';
  return (
    <figure class="duration-chart">
      <div
        ref={plot}
        class="plot"
        role="img"
        aria-label={`Chart of durations. ${runsInWords(runs)}${quantiles ? `; ${lines}` : ''}`}
      />
      <figcaption>
        {runs.length === 1 ? 'How long the last run took' : `How long each of the last ${count(runs.length)} runs took`}
        , oldest left; <span class="legend-failed">●</span> failed{quantiles && `; dashed lines: ${lines}`}.
        {problem && <span class="problem"> {problem}</span>}
      </figcaption>
    </figure>
  );
}
