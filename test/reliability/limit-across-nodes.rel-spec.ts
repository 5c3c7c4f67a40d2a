import { useCluster } from './support/cluster.js';
import { countBy, printFigures, waitFor } from './support/util.js';

const RUNS = 60;
const LIMIT = 2;
const WORKERS = 3;
/** One slot per node: the limit binds only when the nodes race for it, never inside one node. */
const CONCURRENCY = 1;

interface Span {
  worker_id: string;
  started_at: Date;
  finished_at: Date;
}

/**
 * The most runs whose spans overlap at one instant: the exact peak, not a sample. A node of
 * concurrency 1 runs one command at a time, but the cycle that records an end claims the next
 * run with the instant it began, a moment before the end's own timestamp: a span is therefore
 * cut at the next start on its worker.
 */
function peakOverlap(rows: Span[]): number {
  const spans = rows.map((row) => {
    const next = rows
      .filter((other) => other.worker_id === row.worker_id && other.started_at > row.started_at)
      .reduce<Date | null>(
        (soonest, other) => (soonest && soonest < other.started_at ? soonest : other.started_at),
        null,
      );
    return { started_at: row.started_at, finished_at: next && next < row.finished_at ? next : row.finished_at };
  });
  const edges = spans.flatMap((s) => [
    { at: s.started_at.getTime(), step: 1 },
    { at: s.finished_at.getTime(), step: -1 },
  ]);
  // an end at the same instant as a start frees its place first
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let peak = 0;
  for (const edge of edges) peak = Math.max(peak, (now += edge.step));
  return peak;
}

describe('reliability: a concurrency limit across nodes', () => {
  const cluster = useCluster('limit');

  it(`${WORKERS} worker nodes of concurrency ${CONCURRENCY} claiming ${RUNS} runs of a group of limit ${LIMIT} at once never run more than ${LIMIT}`, () =>
    cluster().scenario(async () => {
      const c = cluster();
      const [api] = await c.startNodes(
        { name: 'api', role: 'api' },
        ...Array.from({ length: WORKERS }, (_, i) => ({
          name: `worker-${i + 1}`,
          role: 'worker' as const,
          env: { ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY) },
        })),
      );
      const client = c.client(api!);
      await client.expect(201, 'POST', '/concurrency-groups', { name: 'shared-db', limit: LIMIT });
      const job = await client.createJob({
        name: 'limited',
        command: 'sleep 0.3',
        cronExpression: '0 0 1 1 *',
        enabled: false,
      });
      // one statement queues them all: every worker races for the same lane at once
      await c.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
                                 created_at, concurrency_group)
         SELECT gen_random_uuid(), $1, 'sleep 0.3', 0, 60, 'QUEUED', 1, 'MANUAL', clock_timestamp(), clock_timestamp(),
                'shared-db'
         FROM generate_series(1, $2)`,
        [job.id, RUNS],
      );
      let sampledPeak = 0;
      await waitFor(
        async () => {
          const [row] = await c.sql<{ running: number; open: number }>(
            `SELECT count(*) FILTER (WHERE status = 'RUNNING')::int AS running,
                    count(*) FILTER (WHERE status IN ('QUEUED', 'RUNNING'))::int AS open
               FROM executions WHERE job_id = $1`,
            [job.id],
          );
          sampledPeak = Math.max(sampledPeak, row!.running);
          return row!.open === 0 ? true : undefined;
        },
        `all ${RUNS} runs to finish`,
        120_000,
        50,
      );
      const rows = await c.sql<Span & { status: string }>(
        `SELECT status, worker_id, started_at, finished_at FROM executions WHERE job_id = $1`,
        [job.id],
      );
      const byNode = countBy(rows, (row) => c.nodeOfWorker(row.worker_id)?.name ?? 'unknown');
      printFigures('limit across nodes', {
        runs: rows.length,
        'peak RUNNING, sampled every 50 ms': sampledPeak,
        'peak overlap of the recorded runs': peakOverlap(rows),
        'runs per node': JSON.stringify(byNode),
      });
      expect(rows.every((row) => row.status === 'SUCCEEDED')).toBe(true);
      expect(sampledPeak).toBeLessThanOrEqual(LIMIT);
      expect(peakOverlap(rows)).toBe(LIMIT);
      // the limit was held between nodes: more than one node ran the group's runs (a node whose run
      // ends claims the freed place in the same transaction, so the first ones to get in keep it)
      expect(Object.keys(byNode).length).toBeGreaterThanOrEqual(LIMIT);
    }));
});
