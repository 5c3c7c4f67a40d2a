import { api, ok } from '../api/client';
import { AuditFilterForm, auditFilters, auditHref, auditQuery, isFiltered } from './audit-filters';
import { Loading, PageTitle, Problem, Time } from '../shared/ui';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Clip, Table } from '../shared/table';

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
      <p>
        Every change made through the API, newest first, with the name of the token that made it and, for jobs and
        concurrency groups, what it changed.
      </p>
      <AuditFilterForm filters={filters} />
      <Problem error={audit.error} />
      {!audit.data && !audit.error && <Loading />}
      {audit.data?.items.length === 0 && <p>{isFiltered(filters) ? 'No change matches.' : 'No change yet.'}</p>}
      {audit.data && audit.data.items.length > 0 && (
        <Table label="Audit">
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
                <td class="nowrap">
                  <Time iso={event.createdAt} />
                </td>
                <td class="nowrap">{event.actor}</td>
                <td class="nowrap">{event.action}</td>
                <td class="nowrap">
                  <Target action={event.action} id={event.targetId} details={event.details} />
                </td>
                <td class="wrap">
                  <Details action={event.action} details={event.details} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" class="pager">
        {cursor && <Link href={auditHref(filters)}>Newest</Link>}
        {audit.data?.nextCursor && <Link href={auditHref(filters, audit.data.nextCursor)}>Older</Link>}
      </nav>
    </>
  );
}

/** What the API records beside an entry (see GET /audit): the target's name, what changed, the route's id. */
interface EntryDetails {
  name?: string;
  changes?: Record<string, { before: unknown; after: unknown }>;
  path?: { id?: string };
}

/** Where a target's page is, by the kind of action; none for what has no page (a token, a worker). */
function targetHref(action: string, id: string): string | undefined {
  if (action.startsWith('job.')) return `/jobs/${id}`;
  if (action.startsWith('execution.')) return `/executions/${id}`;
  if (action.startsWith('channel.')) return withQuery('/channels', { channel: id });
  return undefined;
}

/** The target by its name (its id on hover), linked to its page; a run by the start of its id. */
function Target({ action, id, details: { name } }: { action: string; id: string | null; details: EntryDetails }) {
  if (!id) return <>—</>;
  const label = name ?? (action.startsWith('execution.') ? `run ${id.slice(0, 8)}` : id);
  const href = targetHref(action, id);
  return href ? (
    <Link href={href} class="clip" title={label === id ? id : `${label} (${id})`}>
      {label}
    </Link>
  ) : (
    <Clip text={name ? `${name} (${id})` : id}>{name ?? <code>{id}</code>}</Clip>
  );
}

/** A value as the trail shows it: text as it is, none for null, anything else as JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function Details({ action, details }: { action: string; details: EntryDetails }) {
  const changes = Object.entries(details.changes ?? {});
  const job = action.startsWith('execution.') ? details.path?.id : undefined;
  if (changes.length === 0 && !job) return <>—</>;
  return (
    <>
      {job && (
        <p class="plain">
          of the job <Link href={`/jobs/${job}`}>{job.slice(0, 8)}</Link>
        </p>
      )}
      {changes.length > 0 && (
        <ul class="changes">
          {changes.map(([field, { before, after }]) => (
            <li key={field}>
              {field}: <del>{shown(before)}</del> → <ins>{shown(after)}</ins>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
