import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionRow, QueueableJob, useCluster } from './support/cluster.js';
import { countBy, ms, percentile, printFigures, seconds, waitFor } from './support/util.js';

const EXECUTIONS = 2000;
const WORKERS = 3;
const CONCURRENCY = 8;

describe('reliability: exactly-once claim', () => {
  const cluster = useCluster('claim');

  it(`runs each of ${EXECUTIONS} queued executions exactly once on ${WORKERS} workers of concurrency ${CONCURRENCY}`, () =>
    cluster().scenario(async () => {
      const c = cluster();
      const [api, ...workers] = await c.startNodes(
        { name: 'api', role: 'api' },
        ...Array.from({ length: WORKERS }, (_, i) => ({
          name: `worker-${i + 1}`,
          role: 'worker' as const,
          env: { ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY) },
        })),
      );
      const file = join(c.workDir, 'claimed.txt');
      const job = await c.client(api!).createJob({
        name: 'exactly-once-claim',
        command: `echo $ORBIT_EXECUTION_ID >> ${file}`,
        cronExpression: '0 0 1 1 *',
        enabled: false,
        timeoutSeconds: 300,
      });

      // one statement queues them all (as bench/bench.ts does): every worker races for the same rows
      const began = Date.now();
      await c.queueMany(job as QueueableJob, EXECUTIONS);
      const insertedMs = Date.now() - began;
      await waitFor(
        async () => {
          const [row] = await c.sql<{ open: number }>(
            `SELECT count(*)::int AS open FROM executions WHERE job_id = $1 AND status IN ('QUEUED', 'RUNNING')`,
            [job.id],
          );
          return row!.open === 0 ? true : undefined;
        },
        `all ${EXECUTIONS} executions to finish`,
        200_000,
        250,
      );

      const rows = await c.executionsOfJob(job.id as string);
      const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      const seen = countBy(lines, (line) => line);
      const ids = new Set(rows.map((row) => row.id));
      const duplicates = Object.entries(seen).filter(([, n]) => n > 1);
      const missing = rows.filter((row) => seen[row.id] === undefined).map((row) => row.id);
      const strangers = lines.filter((line) => !ids.has(line));
      const claims = countBy(rows, (row) => c.nodeOfWorker(row.worker_id)?.name ?? `unknown worker ${row.worker_id}`);
      const lastFinished = Math.max(...rows.map((row) => row.finished_at?.getTime() ?? NaN));
      const wallMs = lastFinished - began;
      const queueToStart = rows.map(
        (row: ExecutionRow) => (row.started_at?.getTime() ?? NaN) - row.created_at.getTime(),
      );

      printFigures(`exactly-once claim (${EXECUTIONS} executions, ${WORKERS} workers × concurrency ${CONCURRENCY})`, {
        'queued in one INSERT': ms(insertedMs),
        'insert → last finished': seconds(wallMs),
        'executions/s': (EXECUTIONS / (wallMs / 1000)).toFixed(1),
        'queue → start p50 / p99': `${ms(percentile(queueToStart, 0.5))} / ${ms(percentile(queueToStart, 0.99))}`,
        ...Object.fromEntries(workers.map((w) => [`claims by ${w.name}`, claims[w.name] ?? 0])),
        statuses: JSON.stringify(countBy(rows, (row) => row.status)),
        'ids written / distinct': `${lines.length} / ${Object.keys(seen).length}`,
        'ids written twice': duplicates.length,
        'ids never written': missing.length,
      });

      expect(rows).toHaveLength(EXECUTIONS);
      expect(countBy(rows, (row) => row.status)).toEqual({ SUCCEEDED: EXECUTIONS });
      expect(rows.filter((row) => row.exit_code !== 0 || row.attempt !== 1)).toEqual([]);
      expect(duplicates).toEqual([]);
      expect(missing).toEqual([]);
      expect(strangers).toEqual([]);
      expect(lines).toHaveLength(EXECUTIONS);
      // every claim came from one of the three workers, and each of them took part in the race
      expect(Object.keys(claims).sort()).toEqual(workers.map((w) => w.name).sort());
      for (const worker of workers) expect(claims[worker.name]).toBeGreaterThan(0);
    }));
});
