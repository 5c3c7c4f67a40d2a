import { api, ok, type Worker } from '../api/client';
import { Loading, PageTitle, Problem, Time } from '../shared/ui';
import { count } from '../shared/format';
import { startsOrEnds } from '../live/concerns';
import { useLive } from '../live/use-live';
import { WorkerLabels } from './placement';
import { WorkerDrain } from './worker-drain';
import { WorkerLanes } from './worker-lanes';
import { Link } from '../shared/router';
import { Clip, Table } from '../shared/table';

const HEARTBEAT_POLL_MS = 15_000;

const LAUNCHER_NAMES: Record<Worker['launcher'], string> = { native: 'native', node: 'Node spawner' };

export function WorkersPage() {
  const workers = useLive(() => ok(api.GET('/workers')), [], {
    // running counts follow the stream; heartbeats are not in it, so liveness is polled
    concerns: startsOrEnds,
    pollMs: HEARTBEAT_POLL_MS,
  });
  const items = workers.data?.items ?? [];
  return (
    <>
      <PageTitle title="Workers">Workers</PageTitle>
      <p>
        Running workers, and for a day those that stopped heartbeating (lost). A worker that stopped cleanly is gone.
      </p>
      <Problem error={workers.error} />
      {!workers.data && !workers.error && <Loading />}
      {workers.data && items.length === 0 && <p class="problem">No worker is running.</p>}
      {items.length > 0 && (
        <Table label="Workers">
          <thead>
            <tr>
              <th scope="col">Worker</th>
              <th scope="col">State</th>
              <th scope="col">Running</th>
              <th scope="col">Runs now</th>
              <th scope="col">Host load</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">Started</th>
              <th scope="col">Version</th>
              <th scope="col">Launcher</th>
              <th scope="col">Labels</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((worker) => (
              <tr key={worker.id}>
                <td>
                  <Clip text={worker.id}>
                    <code>{worker.id}</code>
                  </Clip>
                </td>
                <td>{worker.alive ? (worker.draining ? 'draining' : 'live') : 'lost'}</td>
                <td>
                  {count(worker.running)} of {count(worker.concurrency)}
                </td>
                <td>
                  <HeldRuns worker={worker} />
                </td>
                <td>
                  <HostLoad worker={worker} />
                </td>
                <td>
                  <Time iso={worker.lastHeartbeatAt} />
                </td>
                <td>
                  <Time iso={worker.startedAt} />
                </td>
                <td>{worker.version}</td>
                <td>{LAUNCHER_NAMES[worker.launcher]}</td>
                <td>
                  <WorkerLabels worker={worker} />
                </td>
                <td>
                  <WorkerDrain worker={worker} changed={workers.reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {items.length > 0 && <WorkerLanes workers={items} />}
    </>
  );
}

/** The runs a worker holds now, each linked, named by its job. */
function HeldRuns({ worker }: { worker: Worker }) {
  if (worker.executions.length === 0) return <>—</>;
  return (
    <ul class="plain">
      {worker.executions.map((run) => (
        <li key={run.id}>
          <Link href={`/executions/${run.id}`}>{run.jobName ?? `${run.jobId.slice(0, 8)} (deleted)`}</Link>, since{' '}
          <Time iso={run.startedAt} />
        </li>
      ))}
    </ul>
  );
}

/** The host's load over the last minute beside its CPUs: a load above the CPUs means work waits for them. */
function HostLoad({ worker }: { worker: Worker }) {
  if (worker.loadAverage === null || worker.cpus === null) return <>—</>;
  return (
    <span title="load average over the last minute, at the last heartbeat">
      {worker.loadAverage.toFixed(2)} on {count(worker.cpus)} {worker.cpus === 1 ? 'CPU' : 'CPUs'}
    </span>
  );
}
