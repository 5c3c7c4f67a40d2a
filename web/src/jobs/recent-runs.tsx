import { api, ok } from '../api/client';
import type { components } from '../api/openapi';
import { count, millis, percent } from '../shared/format';
import { useLive } from '../live/use-live';

export type JobRecentRuns = components['schemas']['JobRecentRunsResponse'];
export type RecentRun = components['schemas']['RecentRunResponse'];

/** Runs drawn beside each job in the list. */
const PER_JOB = 20;
const BAR = { width: 4, gap: 1, height: 18 } as const;
const SPARK = { width: 64, height: 18, dot: 1.5 } as const;

/** The newest runs that ended of each of these jobs, read again when one of them has news. */
export function useRecentRuns(jobIds: readonly string[], count = PER_JOB) {
  const ids = [...jobIds];
  return useLive(
    async () => {
      if (ids.length === 0) return new Map<string, JobRecentRuns>();
      const answer = await ok(api.GET('/jobs/recent-runs', { params: { query: { ids, count } } }));
      return new Map(answer.items.map((item) => [item.jobId, item]));
    },
    [ids.join(','), count],
    { concerns: (event) => event.executionId !== null && ids.includes(event.jobId ?? '') },
  );
}

/** What a sighted reader takes from the bars, in words. */
export function runsInWords(runs: readonly RecentRun[]): string {
  if (runs.length === 0) return 'No run has ended yet';
  const failed = runs.filter((run) => run.status === 'FAILED').length;
  const durations = runs.flatMap((run) => (run.durationMs === null ? [] : [run.durationMs]));
  const range =
    durations.length === 0 ? '' : `, took ${millis(Math.min(...durations))} to ${millis(Math.max(...durations))}`;
  return `Last ${count(runs.length)} ${runs.length === 1 ? 'run' : 'runs'}: ${count(failed)} failed${range}`;
}

/** The recent durations as small bars, oldest left, failures in red, each as tall as its run was long. */
export function RunBars({ runs }: { runs: readonly RecentRun[] }) {
  const ordered = [...runs].reverse();
  const longest = Math.max(1, ...ordered.map((run) => run.durationMs ?? 0));
  const width = Math.max(1, ordered.length) * (BAR.width + BAR.gap);
  return (
    <svg
      class="run-bars"
      role="img"
      aria-label={runsInWords(runs)}
      width={width}
      height={BAR.height}
      viewBox={`0 0 ${width} ${BAR.height}`}
    >
      {ordered.map((run, i) => {
        const height = Math.max(2, Math.round(((run.durationMs ?? 0) / longest) * BAR.height));
        return (
          <rect
            key={run.id}
            class={`bar bar-${run.status.toLowerCase()}`}
            x={i * (BAR.width + BAR.gap)}
            y={BAR.height - height}
            width={BAR.width}
            height={height}
          />
        );
      })}
    </svg>
  );
}

/** The durations of the runs that have one, oldest first, in words: where the line starts, ends and peaks. */
export function durationsInWords(runs: readonly RecentRun[]): string {
  const timed = [...runs].reverse().filter((run) => run.durationMs !== null);
  if (timed.length === 0) return 'No duration yet';
  const ms = timed.map((run) => run.durationMs!);
  const [first, last] = [ms[0]!, ms[ms.length - 1]!];
  const trend = timed.length === 1 ? '' : `, from ${millis(first)} to ${millis(last)}`;
  return `Durations of the last ${count(timed.length)} ${timed.length === 1 ? 'run' : 'runs'}${trend}; longest ${millis(Math.max(...ms))}`;
}

/**
 * The same runs' durations as a line, oldest left, a dot on each failure: the trend the bars'
 * heights hint at, on a common scale from zero, so a slow drift shows.
 */
export function DurationSparkline({ runs }: { runs: readonly RecentRun[] }) {
  const timed = [...runs].reverse().filter((run) => run.durationMs !== null);
  if (timed.length < 2) return null;
  const longest = Math.max(1, ...timed.map((run) => run.durationMs!));
  const x = (i: number) => (i / (timed.length - 1)) * SPARK.width;
  const y = (ms: number) => SPARK.height - SPARK.dot - (ms / longest) * (SPARK.height - 2 * SPARK.dot);
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={durationsInWords(runs)}
      width={SPARK.width}
      height={SPARK.height}
      viewBox={`0 0 ${SPARK.width} ${SPARK.height}`}
    >
      <polyline points={timed.map((run, i) => `${x(i)},${y(run.durationMs!)}`).join(' ')} />
      {timed.map((run, i) =>
        run.status === 'FAILED' ? <circle key={run.id} cx={x(i)} cy={y(run.durationMs!)} r={SPARK.dot} /> : null,
      )}
    </svg>
  );
}

/** The two cells of a job's row: its recent runs and their success rate. */
export function RecentRunsCells({ recent }: { recent: JobRecentRuns | undefined }) {
  return (
    <>
      <td class="nowrap">
        {recent ? (
          recent.runs.length > 0 ? (
            <>
              <RunBars runs={recent.runs} />
              <DurationSparkline runs={recent.runs} />
            </>
          ) : (
            'none yet'
          )
        ) : (
          '…'
        )}
      </td>
      <td>{recent ? percent(recent.successRate) : '…'}</td>
    </>
  );
}
