import { api, ok } from '../api/client';
import { millis } from '../shared/format';
import { useLive } from '../live/use-live';
import { Loading, Problem, Time } from '../shared/ui';
import { Table } from '../shared/table';

/** What one attempt got: the HTTP status or the SMTP answer, or the error. */
function answerOf(attempt: { httpStatus: number | null; smtpResponse: string | null; error: string | null }): string {
  return attempt.error ?? (attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : (attempt.smtpResponse ?? ''));
}

/** The newest deliveries of a channel or a job, each with its attempts. */
export function Deliveries({ channel, jobId }: { channel?: string; jobId?: string }) {
  const deliveries = useLive(
    () => ok(api.GET('/deliveries', { params: { query: { channel, jobId, limit: 20 } } })),
    [channel, jobId],
    { pollMs: 5_000 }, // deliveries are not in the event stream
  );
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Alert deliveries</h2>
      <Problem error={deliveries.error} />
      {!deliveries.data && !deliveries.error && <Loading />}
      {deliveries.data?.items.length === 0 && <p class="hint">No alert was sent.</p>}
      {deliveries.data && deliveries.data.items.length > 0 && (
        <Table label="Alert deliveries">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Channel</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.items.map((delivery) => (
              <tr key={delivery.id}>
                <td>
                  <Time iso={delivery.createdAt} />
                </td>
                <td>{delivery.event}</td>
                <td>{delivery.channelName}</td>
                <td>{delivery.status}</td>
                <td class="wrap">
                  <ol class="attempts">
                    {delivery.attempts.map((attempt) => (
                      <li key={attempt.attempt}>
                        <Time iso={attempt.at} /> {answerOf(attempt)} ({millis(attempt.latencyMs)})
                      </li>
                    ))}
                  </ol>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
