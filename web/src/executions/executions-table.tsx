import type { Execution } from '../api/client';
import { count, duration } from '../shared/format';
import { Link } from '../shared/router';
import { Status, Time } from '../shared/ui';
import { Table } from '../shared/table';

/** Runs, newest first, each linking to its page. */
export function ExecutionsTable({
  items,
  empty,
  caption,
  withCommand = false,
}: {
  items: Execution[];
  empty: string;
  caption?: string;
  /** For runs of several jobs: what each ran. */
  withCommand?: boolean;
}) {
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <Table label={caption ?? 'Runs'}>
      {caption && <caption class="visually-hidden">{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">Run</th>
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
            <td>{execution.exitCode ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
