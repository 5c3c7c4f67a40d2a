import { api, ok, type ExecutionStatus } from '../api/client';
import type { components } from '../api/openapi';
import { ExecutionsTable } from '../executions/executions-table';
import { Loading, PageTitle, Problem, Status, Time } from '../shared/ui';
import { count, lastOf, seconds } from '../shared/format';
import { isExecutionEvent } from '../live/concerns';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Schedule } from '../jobs/jobs';
import { jobNames } from '../jobs/job-names';
import { Table } from '../shared/table';
import { ActivitySection } from './activity';

type Overview = components['schemas']['OverviewResponse'];

const STATUSES: ExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'RUNNING', 'QUEUED'];

const recent = (status: 'RUNNING' | 'FAILED', limit: number) =>
  ok(api.GET('/executions', { params: { query: { status, limit } } }));

/** A bounded count: at the bound, there are at least that many. */
function Count({ n, overview }: { n: number; overview: Overview }) {
  return (
    <>
      {count(n)}
      {n >= overview.countLimit ? '+' : ''}
    </>
  );
}

export function OverviewPage() {
  const live = useLive(
    async () => {
      const [overview, running, failed, workers] = await Promise.all([
        ok(api.GET('/overview')),
        recent('RUNNING', 10),
        recent('FAILED', 10),
        ok(api.GET('/workers')),
      ]);
      const names = await jobNames([...running.items, ...failed.items].map((execution) => execution.jobId));
      return { overview, running, failed, names, workers: workers.items };
    },
    [],
    // heartbeats are not in the stream: lost workers show up on the slow poll; so do late runs
    { concerns: (event) => isExecutionEvent(event) || event.type.startsWith('job.'), pollMs: 30_000 },
  );
  const data = live.data;
  if (!data) {
    return (
      <>
        <PageTitle title="Overview">Overview</PageTitle>
        <Problem error={live.error} />
        {!live.error && <Loading />}
      </>
    );
  }
  const { overview: o } = data;
  const alive = data.workers.filter((w) => w.alive);
  const lost = data.workers.filter((w) => !w.alive);
  const problems = alive.length === 0 || o.now.late > 0 || o.failingRepeatedly.length > 0;
  return (
    <>
      <PageTitle title="Overview">Overview</PageTitle>
      <Problem error={live.error} />
      <ul class="cards" aria-label="At a glance">
        <li>
          <strong>
            <Count n={o.now.running} overview={o} />
          </strong>{' '}
          running
        </li>
        <li>
          <strong>
            <Count n={o.now.queued} overview={o} />
          </strong>{' '}
          queued
        </li>
        <li class={o.now.late > 0 ? 'warn' : undefined}>
          <strong>
            <Count n={o.now.late} overview={o} />
          </strong>{' '}
          late
        </li>
        <li class={alive.length === 0 ? 'warn' : undefined}>
          <strong>{count(alive.length)}</strong> live {alive.length === 1 ? 'worker' : 'workers'}
          {lost.length > 0 && <>, {count(lost.length)} lost</>}
        </li>
      </ul>

      <section aria-labelledby="problems">
        <h2 id="problems">Problems</h2>
        {!problems && <p>No problem found: workers are live, no run waits late, no job fails repeatedly.</p>}
        {problems && (
          <ul class="problem">
            {alive.length === 0 && (
              <li>
                No live worker: queued runs wait until one starts. See <Link href="/workers">Workers</Link>.
              </li>
            )}
            {o.now.late > 0 && (
              <li>
                <Count n={o.now.late} overview={o} /> {o.now.late === 1 ? 'run waits' : 'runs wait'} more than{' '}
                {seconds(o.now.lateAfterSeconds)} past due to start; the longest since{' '}
                <Time iso={o.now.oldestQueuedDueAt} />.
              </li>
            )}
            {o.failingRepeatedly.map((job) => (
              <li key={job.jobId}>
                <Link href={`/jobs/${job.jobId}`}>{job.name}</Link> failed its{' '}
                {job.atLeast ? `last ${count(job.failuresInRow)}+ runs` : lastOf(job.failuresInRow, 'run')} (last{' '}
                <Time iso={job.lastFinishedAt} />
                ).
              </li>
            ))}
          </ul>
        )}
        {o.failingRepeatedly.length > 0 && (
          <p>
            <Link href={withQuery('/jobs', { failing: 'true' })}>Every failing job</Link>
          </p>
        )}
      </section>

      <ActivitySection />

      <section aria-labelledby="last-day">
        <h2 id="last-day">Runs in the last {count(o.windowHours)} hours</h2>
        <ul class="cards" aria-labelledby="last-day">
          {STATUSES.map((status) => (
            <li key={status}>
              <strong>
                <Count n={o.lastWindow[status]} overview={o} />
              </strong>{' '}
              <Status status={status} />
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="running-now">
        <h2 id="running-now">Running now</h2>
        <ExecutionsTable
          items={data.running.items}
          empty="Nothing runs now."
          caption="Running now"
          jobNames={data.names}
          withCommand
        />
      </section>
      <section aria-labelledby="recent-failures">
        <h2 id="recent-failures">Recent failures</h2>
        <ExecutionsTable
          items={data.failed.items}
          empty="No failed run."
          caption="Recent failures"
          jobNames={data.names}
          withCommand
        />
      </section>

      <section aria-labelledby="due">
        <h2 id="due">Due in the next {count(o.windowHours)} hours</h2>
        <p>
          <Count n={o.due.jobs} overview={o} /> {o.due.jobs === 1 ? 'job fires' : 'jobs fire'} before{' '}
          <Time iso={o.until} />
          {o.due.next.length > 0 && o.due.next.length < o.due.jobs ? `; the first ${count(o.due.next.length)}:` : '.'}
        </p>
        {o.due.next.length > 0 && (
          <Table label="Due next">
            <caption class="visually-hidden">Due next, soonest first</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Next run</th>
                <th scope="col">Schedule</th>
                <th scope="col">Time zone</th>
              </tr>
            </thead>
            <tbody>
              {o.due.next.map((job) => (
                <tr key={job.jobId}>
                  <td>
                    <Link href={`/jobs/${job.jobId}`} class="clip" title={job.name}>
                      {job.name}
                    </Link>
                  </td>
                  <td>
                    <Time iso={job.nextRunAt} />
                  </td>
                  <td>
                    <Schedule job={job} />
                  </td>
                  <td>{job.timezone}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </section>
    </>
  );
}
