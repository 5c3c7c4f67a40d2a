import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Job } from '../api/client';
import { RecentRunsCells, useRecentRuns } from './recent-runs';
import { Loading, PageTitle, Problem, Status, Time } from '../shared/ui';
import { Clip, Table } from '../shared/table';
import { count, cronInWords } from '../shared/format';
import { useLive } from '../live/use-live';
import { Link, navigate, withQuery } from '../shared/router';
import { useSession } from '../auth/session';

const PAGE_SIZE = 20;
type Filter = '' | 'true' | 'false';

/** What one bulk action does to one job. */
const ACTIONS = {
  pause: { label: 'Pause', done: 'Paused', role: 'operator', run: (id: string) => act(id, 'pause') },
  resume: { label: 'Resume', done: 'Resumed', role: 'operator', run: (id: string) => act(id, 'resume') },
  run: {
    label: 'Run now',
    done: 'Queued a run of',
    role: 'operator',
    run: (id: string) => ok(api.POST('/jobs/{id}/executions', { params: { path: { id } }, body: {} })),
  },
} as const;
type Action = keyof typeof ACTIONS;

function act(id: string, action: 'pause' | 'resume') {
  return ok(api.POST(`/jobs/{id}/${action}`, { params: { path: { id } }, body: {} }));
}

export function Schedule({ job }: { job: Pick<Job, 'cronExpression'> }) {
  if (job.cronExpression === null) return <span class="words">no schedule: by hand or by trigger</span>;
  const words = cronInWords(job.cronExpression);
  return (
    <Clip text={words ? `${words} (${job.cronExpression})` : job.cronExpression}>
      {words && <span class="words">{words}</span>} <code>{job.cronExpression}</code>
    </Clip>
  );
}

export function JobsPage({ query }: { query: URLSearchParams }) {
  const session = useSession();
  const name = query.get('name') ?? '';
  const enabled = (query.get('enabled') ?? '') as Filter;
  const failing = query.get('failing') === 'true' ? 'true' : undefined;
  const cursor = query.get('cursor') ?? undefined;
  const [search, setSearch] = useState(name);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<{ message: string; failures: string[] }>();
  const [busy, setBusy] = useState(false);
  // Back or a link changed the address: the box shows its name. Only on a change, not at mount,
  // where it would wipe what was typed before the effect ran
  const shownName = useRef(name);
  useEffect(() => {
    if (shownName.current !== name) {
      shownName.current = name;
      setSearch(name);
    }
    setSelected(new Set());
  }, [name, enabled, failing, cursor]);

  const jobs = useLive(
    () =>
      ok(
        api.GET('/jobs', {
          params: {
            query: {
              limit: PAGE_SIZE,
              cursor,
              name: name || undefined,
              enabled: enabled === '' ? undefined : enabled === 'true',
              failing: failing ? true : undefined,
            },
          },
        }),
      ),
    [name, enabled, failing, cursor],
    // a job.* event may add, change or remove a row; a run changes its job's last run
    {
      concerns: (event, page) =>
        event.type.startsWith('job.') || (page?.items.some((job) => job.id === event.jobId) ?? false),
    },
  );
  const items = jobs.data?.items ?? [];
  /** The team of each job, shown when the page holds more than one team's. */
  const manyTeams = new Set(items.map((job) => job.team)).size > 1;
  const recent = useRecentRuns(items.map((job) => job.id));
  const actions = (Object.keys(ACTIONS) as Action[]).filter((action) => session.can(ACTIONS[action].role));

  const go = (params: { name?: string; enabled?: Filter; failing?: 'true'; cursor?: string }) =>
    navigate(withQuery('/jobs', { name, enabled, failing, ...params, cursor: params.cursor }));

  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };

  const act = async (action: Action) => {
    const chosen = items.filter((job) => selected.has(job.id));
    setBusy(true);
    const results = await Promise.allSettled(chosen.map((job) => ACTIONS[action].run(job.id)));
    const failures = results.flatMap((result, i) =>
      result.status === 'rejected' ? [`${chosen[i]!.name}: ${(result.reason as Error).message}`] : [],
    );
    const done = chosen.length - failures.length;
    setOutcome({ message: `${ACTIONS[action].done} ${count(done)} ${done === 1 ? 'job' : 'jobs'}.`, failures });
    setSelected(new Set());
    setBusy(false);
    jobs.reload();
  };

  return (
    <>
      <PageTitle title="Jobs">Jobs</PageTitle>
      <div class="toolbar">
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            go({ name: search.trim(), cursor: undefined });
          }}
        >
          <label for="job-search">Search by name</label>
          <input id="job-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
          <button type="submit">Search</button>
        </form>
        <label for="job-filter">Show</label>
        <select
          id="job-filter"
          value={failing ? 'failing' : enabled}
          onChange={(e) => {
            const shown = e.currentTarget.value;
            if (shown === 'failing') go({ enabled: '', failing: 'true', cursor: undefined });
            else go({ enabled: shown as Filter, failing: undefined, cursor: undefined });
          }}
        >
          <option value="">All jobs</option>
          <option value="true">Enabled</option>
          <option value="false">Paused</option>
          <option value="failing">Failing</option>
        </select>
        {session.can('admin') && (
          <Link href="/jobs/new" class="button">
            New job
          </Link>
        )}
      </div>

      {actions.length > 0 && (
        <div class="toolbar" role="group" aria-label="With the selected jobs">
          <span>{count(selected.size)} selected</span>
          {actions.map((action) => (
            <button key={action} type="button" disabled={busy || selected.size === 0} onClick={() => void act(action)}>
              {ACTIONS[action].label}
            </button>
          ))}
        </div>
      )}
      <div role="status">
        {outcome && (
          <>
            <p>{outcome.message}</p>
            {outcome.failures.length > 0 && (
              <ul class="problem">
                {outcome.failures.map((failure) => (
                  <li key={failure}>{failure}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>

      <Problem error={jobs.error} />
      {!jobs.data && !jobs.error && <Loading />}
      {jobs.data && items.length === 0 && <p>{name || enabled || failing ? 'No job matches.' : 'No job yet.'}</p>}
      {items.length > 0 && (
        <Table label="Jobs">
          <caption class="visually-hidden">Jobs, newest first</caption>
          <thead>
            <tr>
              {actions.length > 0 && (
                <th scope="col">
                  <span class="visually-hidden">Selected</span>
                </th>
              )}
              <th scope="col">Name</th>
              {manyTeams && <th scope="col">Team</th>}
              <th scope="col">Schedule</th>
              <th scope="col">Time zone</th>
              <th scope="col">Next run</th>
              <th scope="col">Last run</th>
              <th scope="col">Recent runs</th>
              <th scope="col">Success rate</th>
            </tr>
          </thead>
          <tbody>
            {items.map((job) => (
              <tr key={job.id}>
                {actions.length > 0 && (
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${job.name}`}
                      checked={selected.has(job.id)}
                      onChange={(e) => toggle(job.id, e.currentTarget.checked)}
                    />
                  </td>
                )}
                <td>
                  <span class="cell-line">
                    <Link href={`/jobs/${job.id}`} class="clip" title={job.name}>
                      {job.name}
                    </Link>
                    {!job.enabled && <span class="tag">paused</span>}
                    {job.pausedNote && (
                      <span class="paused-note clip" title={job.pausedNote}>
                        {job.pausedNote}
                      </span>
                    )}
                  </span>
                </td>
                {manyTeams && <td>{job.team}</td>}
                <td>
                  <Schedule job={job} />
                </td>
                <td>{job.timezone}</td>
                <td>{job.enabled ? <Time iso={job.nextRunAt} /> : 'paused'}</td>
                <td>
                  {job.lastExecution ? (
                    <Link href={`/executions/${job.lastExecution.id}`}>
                      <Status status={job.lastExecution.status} /> <Time iso={job.lastExecution.finishedAt} />
                    </Link>
                  ) : (
                    'never'
                  )}
                </td>
                <RecentRunsCells recent={recent.data?.get(job.id)} />
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" class="pager">
        {cursor && <Link href={withQuery('/jobs', { name, enabled, failing })}>First page</Link>}
        {jobs.data?.nextCursor && (
          <Link href={withQuery('/jobs', { name, enabled, failing, cursor: jobs.data.nextCursor })}>Next page</Link>
        )}
      </nav>
    </>
  );
}
