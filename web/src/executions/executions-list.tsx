import { api, ok, type ExecutionStatus } from '../api/client';
import { ExecutionsTable } from './executions-table';
import { jobNames } from '../jobs/job-names';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Loading, PageTitle, Problem, Status, Time } from '../shared/ui';

/** The filters this page reads from its address: those of GET /executions that a picture links to. */
const FILTERS = ['status', 'createdFrom', 'createdBefore'] as const;

/** Runs of every job, newest first, as the address filters them (a bar of the Overview links here). */
export function ExecutionsListPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined])) as Record<
    (typeof FILTERS)[number],
    string | undefined
  >;
  const cursor = query.get('cursor') ?? undefined;
  const status = filters.status as ExecutionStatus | undefined;
  const runs = useLive(
    async () => {
      const page = await ok(api.GET('/executions', { params: { query: { ...filters, status, cursor, limit: 20 } } }));
      return { page, names: await jobNames(page.items.map((execution) => execution.jobId)) };
    },
    [query.toString()],
    { concerns: (event) => event.executionId !== null },
  );
  return (
    <>
      <PageTitle title="Runs">Runs</PageTitle>
      <p>
        {status ? <Status status={status} /> : 'All'} runs
        {filters.createdFrom && (
          <>
            {' '}
            created from <Time iso={filters.createdFrom} exact />
          </>
        )}
        {filters.createdBefore && (
          <>
            {' '}
            {filters.createdFrom ? 'to' : 'created before'} <Time iso={filters.createdBefore} exact />
          </>
        )}
        , newest first.
      </p>
      <Problem error={runs.error} />
      {!runs.data && !runs.error && <Loading />}
      {runs.data && (
        <ExecutionsTable
          items={runs.data.page.items}
          empty="No run matches."
          caption="Runs"
          jobNames={runs.data.names}
          withCommand
        />
      )}
      <nav aria-label="Pages of runs" class="pager">
        {cursor && <Link href={withQuery('/executions', filters)}>Newest</Link>}
        {runs.data?.page.nextCursor && (
          <Link href={withQuery('/executions', { ...filters, cursor: runs.data.page.nextCursor })}>Older</Link>
        )}
      </nav>
    </>
  );
}
