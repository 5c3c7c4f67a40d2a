import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { millis, timeAxis } from '../shared/format';
import { durationQuantiles } from './duration-quantiles';
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
 * Draws the durations of runs (by when each ended) into `target`: a line through all of them, the
 * failed ones marked again as large red points, and their p50 and p95 as dashed lines; the
 * durations' axis in the units the pages use (240 ms, 1.5 s, 2 min 5 s). Its own chunk, loaded by
 * DurationChart when a job page shows the chart, so the first load of the dashboard stays small.
 */
export function drawDurations(target: HTMLElement, runs: readonly RecentRun[], width: number): () => void {
  const ordered = [...runs].filter((run) => run.durationMs !== null).reverse();
  const at = ordered.map((run) => Date.parse(run.finishedAt) / 1000);
  const seconds = ordered.map((run) => run.durationMs! / 1000);
  const failed = ordered.map((run) => (run.status === 'FAILED' ? run.durationMs! / 1000 : null));
  const quantiles = durationQuantiles(ordered.map((run) => run.durationMs!));
  const level = (ms: number | undefined) => at.map(() => (ms === undefined ? null : ms / 1000));
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
        { ...axis, size: 70, values: (_, ticks) => ticks.map((tick) => millis(tick * 1000)) },
      ],
      series: [
        {},
        { label: 'Duration', stroke: ok, width: 1.5, points: { show: true, size: 5, fill: ok } },
        { label: 'Failed', stroke: danger, paths: () => null, points: { show: true, size: 9, fill: danger } },
        { label: 'p50', stroke: fg, width: 1, dash: [6, 4], points: { show: false } },
        { label: 'p95', stroke: fg, width: 1, dash: [2, 3], points: { show: false } },
      ],
    },
    [at, seconds, failed, level(quantiles?.p50), level(quantiles?.p95)],
    target,
  );
  return () => plot.destroy();
}
