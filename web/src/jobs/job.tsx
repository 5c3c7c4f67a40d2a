import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok, type ExecutionStatus, type OrbitEvent } from '../api/client';
import { Confirm } from '../shared/confirm';
import { Deliveries } from '../channels/deliveries';
import { ExecutionsTable } from '../executions/executions-table';
import { PauseDialog, type PauseRequest } from './pause-dialog';
import { Timeline } from './timeline';
import { Loading, PageTitle, Problem, Time } from '../shared/ui';
import { count, seconds } from '../shared/format';
import { useLive } from '../live/use-live';
import { Link, navigate, withQuery } from '../shared/router';
import { useSession } from '../auth/session';
import { JobInsights } from './job-insights';
import { Schedule } from './jobs';
import { JobChain } from './job-chain';
import { settingsBesides, type FieldName } from './form/job-fields';
import { RunWithParameters } from './run-with-parameters';
import { JobAlertRules } from './job-alert-rules';

const STATUSES: ExecutionStatus[] = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

/** The settings the Definition draws in its own way; every other one follows them where it differs from a new job's. */
const DRAWN: ReadonlySet<FieldName> = new Set([
  'name',
  'command',
  'cronExpression',
  'noSchedule',
  'timezone',
  'maxRetries',
  'timeoutSeconds',
  'misfirePolicy',
  'concurrencyPolicy',
  'alerts',
]);

export function JobPage({ id, query }: { id: string; query: URLSearchParams }) {
  const session = useSession();
  const status = (query.get('status') ?? '') as ExecutionStatus | '';
  const cursor = query.get('cursor') ?? undefined;
  const [problem, setProblem] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [pausing, setPausing] = useState(false);

  const ofThisJob = (event: OrbitEvent) => event.jobId === id;
  const job = useLive(() => ok(api.GET('/jobs/{id}', { params: { path: { id } } })), [id], { concerns: ofThisJob });
  // a slot that fired moves the list on, and so does an edit
  const nextRuns = useLive(
    () => ok(api.GET('/jobs/{id}/next-runs', { params: { path: { id }, query: { count: 5 } } })),
    [id, job.data?.updatedAt],
    { concerns: ofThisJob },
  );
  const history = useLive(
    () =>
      ok(api.GET('/executions', { params: { query: { jobId: id, status: status || undefined, cursor, limit: 20 } } })),
    [id, status, cursor],
    { concerns: (event) => ofThisJob(event) && event.executionId !== null },
  );

  const act = async (action: () => Promise<unknown>) => {
    setProblem(undefined);
    try {
      await action();
      job.reload();
      history.reload();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };
  const runNow = () =>
    act(async () => {
      const execution = await ok(api.POST('/jobs/{id}/executions', { params: { path: { id } }, body: {} }));
      navigate(`/executions/${execution.id}`);
    });
  const pause = async (body: PauseRequest) => {
    await ok(api.POST('/jobs/{id}/pause', { params: { path: { id } }, body }));
    job.reload();
  };
  const resume = () => act(() => ok(api.POST('/jobs/{id}/resume', { params: { path: { id } }, body: {} })));
  const remove = () =>
    act(async () => {
      setConfirming(false);
      await ok(api.DELETE('/jobs/{id}', { params: { path: { id } } }));
      navigate('/jobs', { replace: true });
    });

  if (job.error && !job.data) return <Problem error={job.error} />;
  if (!job.data) return <Loading />;
  const j = job.data;
  return (
    <>
      <PageTitle title={j.name}>
        Job <span class="name">{j.name}</span>
        {!j.enabled && <span class="tag">paused</span>}
      </PageTitle>
      <div class="toolbar" role="group" aria-label="Actions">
        {session.can('operator') && (
          <button type="button" onClick={() => void runNow()}>
            Run now
          </button>
        )}
        {session.can('operator') &&
          (j.enabled ? (
            <button type="button" onClick={() => setPausing(true)}>
              Pause
            </button>
          ) : (
            <button type="button" onClick={() => void resume()}>
              Resume
            </button>
          ))}
        {session.can('admin') && (
          <>
            <Link href={`/jobs/${id}/edit`} class="button">
              Edit
            </Link>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        )}
      </div>
      <Problem error={problem} />
      {pausing && <PauseDialog name={j.name} onPause={pause} onClose={() => setPausing(false)} />}
      {confirming && (
        <Confirm
          title={`Delete ${j.name}?`}
          confirm="Delete"
          onConfirm={() => void remove()}
          onClose={() => setConfirming(false)}
        >
          <p>Its queued runs are cancelled; its history stays readable. A running job cannot be deleted.</p>
        </Confirm>
      )}

      <section aria-labelledby="definition">
        <h2 id="definition">Definition</h2>
        <dl class="fields">
          <dt>Command</dt>
          <dd>
            <pre>{j.command}</pre>
          </dd>
          <dt>Schedule</dt>
          <dd>
            <Schedule job={j} />
          </dd>
          <dt>Team</dt>
          <dd>{j.team ?? 'none (its team was deleted)'}</dd>
          <dt>Time zone</dt>
          <dd>{j.timezone}</dd>
          <dt>State</dt>
          <dd>
            {j.enabled ? 'enabled' : 'paused: the schedule does not fire'}
            {j.pausedNote && <p class="paused-note">Note: {j.pausedNote}</p>}
            {j.resumeAt && (
              <p>
                Resumes by itself at <Time iso={j.resumeAt} />
              </p>
            )}
          </dd>
          <dt>Next run</dt>
          <dd>{j.enabled ? <Time iso={j.nextRunAt} /> : '—'}</dd>
          <dt>Max retries</dt>
          <dd>{count(j.maxRetries)}</dd>
          <dt>Timeout</dt>
          <dd>{seconds(j.timeoutSeconds)}</dd>
          <dt>Missed slots</dt>
          <dd>{j.misfirePolicy}</dd>
          <dt>Overlapping runs</dt>
          <dd>{j.concurrencyPolicy}</dd>
          {settingsBesides(j, DRAWN).map(({ label, text }) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd class="setting">{text}</dd>
            </Fragment>
          ))}
          <dt>Created</dt>
          <dd>
            <Time iso={j.createdAt} />
          </dd>
          <dt>Changed</dt>
          <dd>
            <Time iso={j.updatedAt} />
          </dd>
        </dl>
      </section>

      {j.enabled && j.cronExpression !== null && (
        <section aria-labelledby="next-runs">
          <h2 id="next-runs">Next fire times</h2>
          <Problem error={nextRuns.error} />
          <ol>
            {nextRuns.data?.runs.map((run) => (
              <li key={run}>
                <Time iso={run} exact />
              </li>
            ))}
          </ol>
        </section>
      )}

      <JobInsights id={id} />
      {j.cronExpression !== null && <Timeline job={j} query={query} />}
      <JobChain job={j} />
      {session.can('operator') && <RunWithParameters job={j} />}

      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        <label for="history-status">Status</label>
        <select
          id="history-status"
          value={status}
          onChange={(e) => navigate(withQuery(`/jobs/${id}`, { status: e.currentTarget.value }))}
        >
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <Problem error={history.error} />
        {history.data && <ExecutionsTable items={history.data.items} empty="No run yet." />}
        <nav aria-label="History pages" class="pager">
          {cursor && <Link href={withQuery(`/jobs/${id}`, { status })}>Newest</Link>}
          {history.data?.nextCursor && (
            <Link href={withQuery(`/jobs/${id}`, { status, cursor: history.data.nextCursor })}>Older</Link>
          )}
        </nav>
      </section>
      <JobAlertRules job={j} />
      <Deliveries jobId={id} />
    </>
  );
}
