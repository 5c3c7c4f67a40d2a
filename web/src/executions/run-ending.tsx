import { api, ok, type Execution } from '../api/client';
import type { components } from '../api/openapi';
import { useLive } from '../live/use-live';
import { Link } from '../shared/router';
import { Problem, Time } from '../shared/ui';
import { NO_EXIT_CODE } from './exit-code';

type Cancellation = components['schemas']['CancellationResponse'];

const cancellationOf = (id: string) => ok(api.GET('/executions/{id}/cancellation', { params: { path: { id } } }));

/**
 * A run cancelled before runs kept who cancelled them is told from the audit trail, which records
 * a cancel just after the change, which the page may hear of first: an answer that does not know
 * yet is asked again, every second, for this long after the cancel.
 */
const UNKNOWN_FOR_MS = 30_000;
const askAgain = (cancellation: Cancellation | undefined) =>
  cancellation?.by === 'unknown' && Date.now() - Date.parse(cancellation.at) < UNKNOWN_FOR_MS;

/**
 * How a run that ended came to end, in a sentence: who cancelled it, or why it failed. Who
 * cancelled a run is on the run; the cancellation is asked for what is not: the run that replaced
 * one the scheduler cancelled, and who cancelled a run that does not keep it.
 */
export function RunEnding({ execution }: { execution: Execution }) {
  const { id, status, cancelledBy, finishedAt } = execution;
  const ask = status === 'CANCELLED' && (cancelledBy === null || cancelledBy.by === 'scheduler');
  const cancellation = useLive<Cancellation | undefined>(
    () => (ask ? cancellationOf(id) : Promise.resolve(undefined)),
    [id, ask],
    { pollMs: 1000, pollWhile: askAgain },
  );
  const kept: Cancellation | undefined =
    cancelledBy && finishedAt ? { executionId: id, at: finishedAt, replacedBy: null, ...cancelledBy } : undefined;
  const cancelled = cancellation.data ?? kept;
  if (!['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(status)) return null;
  return (
    <section aria-labelledby="ending-heading" class="ending">
      <h2 id="ending-heading" class="visually-hidden">
        How it ended
      </h2>
      {status === 'SUCCEEDED' && (
        <p>
          Succeeded at <Time iso={execution.finishedAt} />.
        </p>
      )}
      {status === 'FAILED' && <Failure execution={execution} />}
      {status === 'CANCELLED' && cancelled && <Cancelled cancellation={cancelled} />}
      <Problem error={cancellation.error} />
    </section>
  );
}

function Failure({ execution }: { execution: Execution }) {
  const { exitCode, errorMessage, finishedAt } = execution;
  return (
    <p>
      Failed at <Time iso={finishedAt} />
      {exitCode === NO_EXIT_CODE
        ? ' without an exit code of its own'
        : exitCode !== null && ` with exit code ${exitCode}`}
      {errorMessage && `: ${errorMessage}`}.
    </p>
  );
}

function Cancelled({ cancellation: { by, actor, at, replacedBy } }: { cancellation: Cancellation }) {
  switch (by) {
    case 'caller':
      return (
        <p>
          Cancelled by {actor} at <Time iso={at} />.
        </p>
      );
    case 'job_deletion':
      return (
        <p>
          Cancelled at <Time iso={at} /> when {actor ?? 'someone'} deleted its job.
        </p>
      );
    case 'scheduler':
      return (
        <p>
          Cancelled by Orbit at <Time iso={at} />:{' '}
          {replacedBy ? <Link href={`/executions/${replacedBy}`}>the run of the next slot</Link> : 'the next slot'}{' '}
          replaced it (REPLACE).
        </p>
      );
    default:
      return (
        <p>
          Cancelled at <Time iso={at} />; by whom, the audit trail does not say.
        </p>
      );
  }
}
