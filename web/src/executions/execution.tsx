import { WaitingFor } from '../workers/placement';
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Execution, type ExecutionOutput } from '../api/client';
import { Attempts } from './attempts';
import { OutputView } from './output';
import { Loading, PageTitle, Problem, Status, Time } from '../shared/ui';
import { duration, seconds } from '../shared/format';
import { useLive } from '../live/use-live';
import { Link } from '../shared/router';
import { useSession } from '../auth/session';
import { ExecutionOrigin } from './execution-origin';
import { exitCodeText } from './exit-code';
import { RunEnding } from './run-ending';

const ACTIVE = new Set(['QUEUED', 'RUNNING']);
/** Workers store output about every second. */
const FOLLOW_MS = 1000;

export function ExecutionPage({ id }: { id: string }) {
  const session = useSession();
  const [problem, setProblem] = useState<string>();
  const live = useLive<{ execution: Execution; output: ExecutionOutput }>(
    async () => {
      const [execution, output] = await Promise.all([
        ok(api.GET('/executions/{id}', { params: { path: { id } } })),
        ok(api.GET('/executions/{id}/output', { params: { path: { id } } })),
      ]);
      return { execution, output };
    },
    [id],
    {
      // its end comes as an event: the read it causes has the last output, stored with the outcome
      concerns: (event) => event.executionId === id,
      // output is not in the stream: it is read while the run runs
      pollMs: FOLLOW_MS,
      pollWhile: (data) => data?.execution.status === 'RUNNING',
    },
  );

  const jobId = live.data?.execution.jobId;
  const [jobName, setJobName] = useState<string>();
  useEffect(() => {
    if (!jobId) return;
    // a deleted job's runs stay readable: then the page names the job by its id
    ok(api.GET('/jobs/{id}', { params: { path: { id: jobId } } })).then(
      (job) => setJobName(job.name),
      () => setJobName(undefined),
    );
  }, [jobId]);

  const cancel = async () => {
    setProblem(undefined);
    try {
      await ok(api.POST('/executions/{id}/cancel', { params: { path: { id } }, body: {} }));
      live.reload();
    } catch (error) {
      setProblem((error as Error).message);
    }
  };

  if (live.error && !live.data) return <Problem error={live.error} />;
  if (!live.data) return <Loading />;
  const e = live.data.execution;
  const active = ACTIVE.has(e.status);
  return (
    <>
      <PageTitle title={`Run ${e.id.slice(0, 8)}`}>
        Run <code>{e.id.slice(0, 8)}</code> <Status status={e.status} />
      </PageTitle>
      <p>
        Of job <Link href={`/jobs/${e.jobId}`}>{jobName ?? e.jobId}</Link>
      </p>
      {active && session.can('operator') && (
        <div class="toolbar" role="group" aria-label="Actions">
          <button type="button" class="danger" onClick={() => void cancel()}>
            Cancel
          </button>
        </div>
      )}
      <Problem error={problem ?? live.error} />
      <RunEnding execution={e} />
      <WaitingFor execution={e} />
      <dl class="fields">
        <dt>Status</dt>
        <dd>
          <Status status={e.status} />
        </dd>
        <dt>Trigger</dt>
        <dd>
          {e.trigger === 'SCHEDULE' ? (
            <>
              SCHEDULE, for the slot <Time iso={e.scheduledFor} />
            </>
          ) : (
            e.trigger
          )}
        </dd>
        <dt>Attempt</dt>
        <dd>
          <Attempts execution={e} />
        </dd>
        <dt>Command</dt>
        <dd>
          <pre>{e.command}</pre>
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={e.createdAt} />
        </dd>
        <dt>Due</dt>
        <dd>
          <Time iso={e.dueAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time iso={e.startedAt} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <Time iso={e.finishedAt} />
        </dd>
        <dt>Took</dt>
        <dd>{duration(e.startedAt, e.finishedAt)}</dd>
        <dt>Timeout</dt>
        <dd>{seconds(e.timeoutSeconds)}</dd>
        <dt>Exit code</dt>
        <dd>{exitCodeText(e)}</dd>
        <dt>Error</dt>
        <dd>{e.errorMessage ?? '—'}</dd>
        <dt>Worker</dt>
        <dd>{e.workerId ?? (e.pinnedWorker ? `pinned to ${e.pinnedWorker}` : '—')}</dd>
        <ExecutionOrigin execution={e} />
      </dl>
      <OutputView output={live.data.output} following={active} />
    </>
  );
}
