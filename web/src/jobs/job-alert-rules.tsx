import { api, ok, type Job } from '../api/client';
import { useSession } from '../auth/session';
import { useLive } from '../live/use-live';
import { Link, withQuery } from '../shared/router';
import { Problem } from '../shared/ui';

/**
 * The job's alert rules: each channel with the events it alerts on, linked to the channel for an
 * admin (channels are theirs to read), who also sees the channels that take every job's events.
 */
export function JobAlertRules({ job }: { job: Job }) {
  const session = useSession();
  const admin = session.can('admin');
  const channels = useLive(
    () => (admin ? ok(api.GET('/channels', { params: { query: { limit: 100 } } })) : Promise.resolve(undefined)),
    [admin],
  );
  const idOf = new Map(channels.data?.items.map((channel) => [channel.name, channel.id]));
  const everyJob = channels.data?.items.filter((channel) => channel.allJobs !== null) ?? [];
  const channel = (name: string) => {
    const id = idOf.get(name);
    return id ? <Link href={withQuery('/channels', { channel: id })}>{name}</Link> : <span class="name">{name}</span>;
  };
  return (
    <section aria-labelledby="alert-rules">
      <h2 id="alert-rules">Alert rules</h2>
      {job.alerts.length === 0 && <p class="empty">No rule of its own.</p>}
      <ul>
        {job.alerts.map((rule, i) => (
          <li key={i}>
            {channel(rule.channel)} on {rule.on?.join(', ')}
          </li>
        ))}
        {everyJob.map((every) => (
          <li key={every.id}>
            {channel(every.name)} on {every.allJobs?.on?.join(', ')} (every job)
          </li>
        ))}
      </ul>
      <Problem error={channels.error} />
    </section>
  );
}
