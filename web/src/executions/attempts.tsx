import { api, ok, type Execution } from '../api/client';
import { count } from '../shared/format';
import { useLive } from '../live/use-live';
import { Link } from '../shared/router';

/**
 * An execution's attempt, with links to the attempt it retries and the one that retries it
 * (GET /executions?retryOf=), which appears when the retry is queued.
 */
export function Attempts({ execution }: { execution: Execution }) {
  const { id, retryOf, attempt, maxRetries } = execution;
  const mayRetry = attempt <= maxRetries;
  const next = useLive(
    async () =>
      mayRetry
        ? (await ok(api.GET('/executions', { params: { query: { retryOf: id, limit: 1 } } }))).items[0]
        : undefined,
    [id, mayRetry],
    // the retry's insert is an event of its job, naming the new execution
    { concerns: (event) => mayRetry && event.jobId === execution.jobId && event.executionId !== id },
  );
  return (
    <>
      {count(attempt)} of at most {count(maxRetries + 1)}
      {retryOf && (
        <>
          {' '}
          · <Link href={`/executions/${retryOf}`}>Previous attempt</Link>
        </>
      )}
      {next.data && (
        <>
          {' '}
          · <Link href={`/executions/${next.data.id}`}>Next attempt</Link>
        </>
      )}
    </>
  );
}
