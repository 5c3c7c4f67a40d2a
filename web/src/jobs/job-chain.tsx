import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Job } from '../api/client';
import { Link } from '../shared/router';

/** The jobs whose runs start this one (upstream), and those this one's runs start (downstream). */
export function JobChain({ job }: { job: Job }) {
  const [jobs, setJobs] = useState<Job[]>();
  useEffect(() => {
    ok(api.GET('/jobs', { params: { query: { limit: 100 } } })).then(
      ({ items }) => setJobs(items),
      () => setJobs([]),
    );
  }, [job.id, job.updatedAt]);
  const idOf = (name: string) => jobs?.find((other) => other.name === name)?.id;
  const downstream = (jobs ?? []).filter((other) => other.triggers.some((trigger) => trigger.after === job.name));
  if (job.triggers.length === 0 && downstream.length === 0) return null;
  const link = (name: string) => {
    const id = idOf(name);
    return id ? <Link href={`/jobs/${id}`}>{name}</Link> : <span>{name}</span>;
  };
  return (
    <section aria-labelledby="chain">
      <h2 id="chain">Chain</h2>
      <dl class="fields">
        <dt>Runs after</dt>
        <dd>
          {job.triggers.length === 0 ? (
            '—'
          ) : (
            <ul>
              {job.triggers.map((trigger) => (
                <li key={trigger.after}>
                  {link(trigger.after)} on {(trigger.on ?? ['SUCCEEDED']).join(', ')}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Starts</dt>
        <dd>
          {downstream.length === 0 ? (
            '—'
          ) : (
            <ul>
              {downstream.map((other) => (
                <li key={other.id}>
                  {link(other.name)} on{' '}
                  {(other.triggers.find((trigger) => trigger.after === job.name)?.on ?? ['SUCCEEDED']).join(', ')}
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}
