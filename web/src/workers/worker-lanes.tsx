import { useContext } from 'preact/hooks';
import type { components } from '../api/openapi';
import { api, ok, type Worker } from '../api/client';
import { startsOrEnds } from '../live/concerns';
import { useLive } from '../live/use-live';
import { dateTime, millis, type Zone } from '../shared/format';
import { Link } from '../shared/router';
import { ZoneContext } from '../shared/time';
import { Problem } from '../shared/ui';
import './worker-lanes.css';

type LaneRun = components['schemas']['LaneRunResponse'];

const HOUR = 3_600_000;
/** A lane moves with time even when no run starts or ends. */
const SLIDE_MS = 30_000;
const MARKS = [60, 45, 30, 15];

/** What a bar says to a screen reader and on hover: the job, how it went, when and how long. */
function nameOf(run: LaneRun, end: number, zone: Zone): string {
  const job = run.jobName ?? `${run.jobId.slice(0, 8)} (deleted)`;
  const took = millis(end - Date.parse(run.startedAt));
  return `${job} ${run.status}, started ${dateTime(run.startedAt, zone)}, ${run.finishedAt ? 'took' : 'running for'} ${took}`;
}

/** A lane per worker: its runs over the last hour, each a bar from its start to its end, linked to the run. */
export function WorkerLanes({ workers }: { workers: Worker[] }) {
  const zone = useContext(ZoneContext);
  const ids = workers.map((worker) => worker.id);
  const lanes = useLive(
    async () => {
      const to = Date.now();
      const query = { from: new Date(to - HOUR).toISOString(), to: new Date(to).toISOString() };
      const answers = await Promise.all(
        ids.map((id) => ok(api.GET('/workers/{id}/runs', { params: { path: { id }, query } }))),
      );
      return { to, runs: answers.map((answer) => answer.items) };
    },
    [ids.join(' ')],
    { concerns: startsOrEnds, pollMs: SLIDE_MS },
  );
  const from = (lanes.data?.to ?? 0) - HOUR;
  const at = (instant: number) => `${(Math.max(0, instant - from) / HOUR) * 100}%`;
  return (
    <section aria-labelledby="lanes" class="lanes">
      <h2 id="lanes">Last hour</h2>
      <p>Each worker's runs, each a bar from its start to its end, coloured by how it went; a bar opens its run.</p>
      <Problem error={lanes.error} />
      {lanes.data && (
        <>
          <ul class="plain" aria-label="Runs per worker">
            {workers.map((worker, i) => (
              <li key={worker.id} class="lane">
                <span class="lane-name clip" title={worker.id}>
                  {worker.id}
                </span>
                <span class="lane-track">
                  {lanes.data!.runs[i]!.map((run) => {
                    const end = run.finishedAt ? Date.parse(run.finishedAt) : lanes.data!.to;
                    return (
                      <span
                        key={run.id}
                        class={`lane-run outcome-${run.status.toLowerCase()}`}
                        style={{ left: at(Date.parse(run.startedAt)), right: `calc(100% - ${at(end)})` }}
                      >
                        <Link href={`/executions/${run.id}`} title={nameOf(run, end, zone)}>
                          <span class="visually-hidden">{nameOf(run, end, zone)}</span>
                        </Link>
                      </span>
                    );
                  })}
                </span>
              </li>
            ))}
          </ul>
          <div class="lane" aria-hidden="true">
            <span />
            <span class="lane-scale">
              {MARKS.map((minutes) => (
                <span key={minutes} style={{ left: at(lanes.data!.to - minutes * 60_000) }}>
                  −{minutes} min
                </span>
              ))}
              <span style={{ right: 0 }}>now</span>
            </span>
          </div>
        </>
      )}
    </section>
  );
}
