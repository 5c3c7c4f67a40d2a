import { api, ok } from '../api/client';
import { ExecutionsTable } from '../components/executions-table';
import { Loading, PageTitle, Problem } from '../components/ui';
import { isExecutionEvent } from '../live/concerns';
import { useLive } from '../live/use-live';
import { Link } from '../router';

const recent = (status: 'RUNNING' | 'QUEUED' | 'FAILED', limit: number) =>
  ok(api.GET('/executions', { params: { query: { status, limit } } }));

export function OverviewPage() {
  const live = useLive(
    async () => {
      const [running, queued, failed, workers] = await Promise.all([
        recent('RUNNING', 20),
        recent('QUEUED', 20),
        recent('FAILED', 10),
        ok(api.GET('/workers')),
      ]);
      return { running, queued, failed, workers: workers.items };
    },
    [],
    // heartbeats are not in the stream: lost workers show up on the slow poll
    { concerns: isExecutionEvent, pollMs: 30_000 },
  );
  const data = live.data;
  const alive = data?.workers.filter((w) => w.alive) ?? [];
  const lost = data?.workers.filter((w) => !w.alive) ?? [];
  return (
    <>
      <PageTitle title="Overview">Overview</PageTitle>
      <Problem error={live.error} />
      {!data ? (
        !live.error && <Loading />
      ) : (
        <>
          <ul class="cards" aria-label="At a glance">
            <li>
              <strong>
                {data.running.items.length}
                {data.running.nextCursor ? '+' : ''}
              </strong>{' '}
              running
            </li>
            <li>
              <strong>
                {data.queued.items.length}
                {data.queued.nextCursor ? '+' : ''}
              </strong>{' '}
              queued
            </li>
            <li class={alive.length === 0 ? 'warn' : undefined}>
              <strong>{alive.length}</strong> live {alive.length === 1 ? 'worker' : 'workers'}
              {lost.length > 0 && <>, {lost.length} lost</>}
            </li>
          </ul>
          {alive.length === 0 && (
            <p class="problem">
              No live worker: queued runs wait until one starts. See <Link href="/workers">Workers</Link>.
            </p>
          )}
          <section aria-labelledby="running-now">
            <h2 id="running-now">Running now</h2>
            <ExecutionsTable items={data.running.items} empty="Nothing runs now." withCommand />
          </section>
          <section aria-labelledby="recent-failures">
            <h2 id="recent-failures">Recent failures</h2>
            <ExecutionsTable items={data.failed.items} empty="No failed run." withCommand />
          </section>
        </>
      )}
    </>
  );
}
