import { api, ok } from '../api/client';
import { AuditFilterForm, auditFilters, auditHref, auditQuery, isFiltered } from './audit-filters';
import { Loading, PageTitle, Problem, Time } from '../shared/ui';
import { useLive } from '../live/use-live';
import { Link } from '../shared/router';

export function AuditPage({ query }: { query: URLSearchParams }) {
  const cursor = query.get('cursor') ?? undefined;
  const filters = auditFilters(query);
  const audit = useLive(
    () => ok(api.GET('/audit', { params: { query: { ...auditQuery(filters), cursor, limit: 50 } } })),
    [auditHref(filters, cursor)],
    { pollMs: 10_000 }, // not in the event stream
  );
  return (
    <>
      <PageTitle title="Audit">Audit</PageTitle>
      <p>Every change made through the API, newest first, with the name of the token that made it.</p>
      <AuditFilterForm filters={filters} />
      <Problem error={audit.error} />
      {!audit.data && !audit.error && <Loading />}
      {audit.data?.items.length === 0 && <p>{isFiltered(filters) ? 'No change matches.' : 'No change yet.'}</p>}
      {audit.data && audit.data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {audit.data.items.map((event) => (
              <tr key={event.id}>
                <td>
                  <Time iso={event.createdAt} />
                </td>
                <td>{event.actor}</td>
                <td>{event.action}</td>
                <td>
                  <Target action={event.action} id={event.targetId} />
                </td>
                <td>
                  <code>{JSON.stringify(event.details)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav aria-label="Pages" class="pager">
        {cursor && <Link href={auditHref(filters)}>Newest</Link>}
        {audit.data?.nextCursor && <Link href={auditHref(filters, audit.data.nextCursor)}>Older</Link>}
      </nav>
    </>
  );
}

function Target({ action, id }: { action: string; id: string | null }) {
  if (!id) return <>—</>;
  if (action.startsWith('job.')) return <Link href={`/jobs/${id}`}>{id}</Link>;
  if (action.startsWith('execution.')) return <Link href={`/executions/${id}`}>{id}</Link>;
  return <code>{id}</code>;
}
