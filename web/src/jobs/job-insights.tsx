import { api, ok } from '../api/client';
import { DurationChart } from './duration-chart';
import { useRecentRuns } from './recent-runs';
import { Problem } from '../shared/ui';
import { count, millis, percent } from '../shared/format';
import { useLive } from '../live/use-live';

/** Runs the chart draws. */
const CHARTED = 100;

const orDash = (ms: number | null | undefined) => (ms === null || ms === undefined ? '—' : millis(ms));

/** A job's recent runs: p50, p95 and the success rate of the last 24 h, and the chart of the last durations. */
export function JobInsights({ id }: { id: string }) {
  const stats = useLive(() => ok(api.GET('/jobs/{id}/stats', { params: { path: { id } } })), [id], {
    concerns: (event) => event.jobId === id && event.executionId !== null,
  });
  const recent = useRecentRuns([id], CHARTED);
  const runs = recent.data?.get(id)?.runs;
  const s = stats.data;
  return (
    <section aria-labelledby="durations">
      <h2 id="durations">Durations</h2>
      <Problem error={stats.error ?? recent.error} />
      {s && (
        <ul class="cards" aria-label={`The last ${count(s.windowHours)} hours`}>
          <li>
            <strong>{orDash(s.durationMs.p50)}</strong> p50
          </li>
          <li>
            <strong>{orDash(s.durationMs.p95)}</strong> p95
          </li>
          <li class={s.successRate !== null && s.successRate < 1 ? 'warn' : undefined}>
            <strong>{percent(s.successRate)}</strong> succeeded
          </li>
          <li>
            <strong>{count(s.counts.FAILED)}</strong> failed, <strong>{count(s.counts.SUCCEEDED)}</strong> succeeded in{' '}
            {count(s.windowHours)} h
          </li>
        </ul>
      )}
      {runs && <DurationChart runs={runs} />}
    </section>
  );
}
