import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { decimal, timeAxis } from '../shared/format';
import type { RecentRun } from './recent-runs';

/** A colour of the design's tokens as the theme shown now resolves it: a canvas cannot read var(). */
function colour(target: HTMLElement, token: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${token})`;
  target.append(probe);
  const resolved = getComputedStyle(probe).color;
  probe.remove();
  return resolved;
}

/**
 * Draws the durations of runs (seconds, by when each ended) into `target`: a line through all
 * of them, and the failed ones marked again as large red points. Its own chunk, loaded by
 * DurationChart when a job page shows the chart, so the first load of the dashboard stays small.
 */
export function drawDurations(target: HTMLElement, runs: readonly RecentRun[], width: number): () => void {
  const ordered = [...runs].filter((run) => run.durationMs !== null).reverse();
  const at = ordered.map((run) => Date.parse(run.finishedAt) / 1000);
  const seconds = ordered.map((run) => run.durationMs! / 1000);
  const failed = ordered.map((run) => (run.status === 'FAILED' ? run.durationMs! / 1000 : null));
  const [ok, danger, fg, line] = ['--ok', '--danger', '--fg', '--line'].map((token) => colour(target, token));
  const axis = { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
  const plot = new uPlot(
    {
      width,
      height: 220,
      legend: { show: false },
      cursor: { show: false },
      scales: { y: { range: (_, min, max) => [0, Math.max(max * 1.1, min + 0.001)] } },
      // both axes in the page's locale and formats: uPlot's own are US English
      axes: [
        { ...axis, values: (_, ticks, _axis, _space, step) => timeAxis(ticks, step) },
        { ...axis, label: 'seconds', values: (_, ticks) => ticks.map(decimal) },
      ],
      series: [
        {},
        { label: 'Duration', stroke: ok, width: 1.5, points: { show: true, size: 5, fill: ok } },
        { label: 'Failed', stroke: danger, paths: () => null, points: { show: true, size: 9, fill: danger } },
      ],
    },
    [at, seconds, failed],
    target,
  );
  return () => plot.destroy();
}
