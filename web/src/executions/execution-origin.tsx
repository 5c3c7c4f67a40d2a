import type { Execution } from '../api/client';
import { Link } from '../shared/router';

/** What a run was started with: its parameter values, and the upstream run that triggered it. */
export function ExecutionOrigin({ execution }: { execution: Execution }) {
  const parameters = Object.entries(execution.parameters);
  return (
    <>
      <dt>Triggered by</dt>
      <dd>
        {execution.triggeredBy ? <Link href={`/executions/${execution.triggeredBy}`}>the upstream run</Link> : '—'}
      </dd>
      <dt>Parameters</dt>
      <dd>
        {parameters.length === 0 ? (
          '—'
        ) : (
          <ul class="parameters">
            {parameters.map(([name, value]) => (
              <li key={name}>
                <code>{name}</code> = <code>{value}</code>
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  );
}
