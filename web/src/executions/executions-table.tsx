import type { Execution } from '../api/client';
import { count, duration } from '../shared/format';
import { Link } from '../shared/router';
import { Status, Time } from '../shared/ui';
import { exitCodeWithReason } from './exit-code';
import { Table } from '../shared/table';

/** Runs, newest first, each linking to its page. */
export function ExecutionsTable({
  items,
  empty,
  caption,
  withCommand = false,
  jobNames,
}: {
  items: Execution[];
  empty: string;
  caption?: string;
  /** For runs of several jobs: what each ran. */
  withCommand?: boolean;
  /** For runs of several jobs: each one's job, named and linked (a deleted job by its id). */
  jobNames?: ReadonlyMap<string, string>;
}) {
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <Table label={caption ?? 'Runs'}>
      {caption && <caption class="visually-hidden">{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">Run</th>
          {jobNames && <th scope="col">Job</th>}
          {withCommand && <th scope="col">Command</th>}
          <th scope="col">Status</th>
          <th scope="col">Trigger</th>
          <th scope="col">Attempt</th>
          <th scope="col">Created</th>
          <th scope="col">Took</th>
          <th scope="col">Exit code</th>
        </tr>
      </thead>
      <tbody>
        {items.map((execution) => (
          <tr key={execution.id}>
            <td>
              <Link href={`/executions/${execution.id}`}>
                <code>{execution.id.slice(0, 8)}</code>
              </Link>
            </td>
            {jobNames && (
              <td>
                <JobName id={execution.jobId} names={jobNames} />
              </td>
            )}
            {withCommand && (
              <td>
                <code class="command" title={execution.command}>
                  {execution.command}
                </code>
              </td>
            )}
            <td>
              <Status status={execution.status} />
            </td>
            <td>{execution.trigger}</td>
            <td>{count(execution.attempt)}</td>
            <td>
              <Time iso={execution.createdAt} />
            </td>
            <td>{duration(execution.startedAt, execution.finishedAt)}</td>
            <td>{exitCodeWithReason(execution)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function JobName({ id, names }: { id: string; names: ReadonlyMap<string, string> }) {
  const name = names.get(id);
  if (name === undefined) return <span title={id}>{id.slice(0, 8)} (deleted)</span>;
  return <Link href={`/jobs/${id}`}>{name}</Link>;
}
