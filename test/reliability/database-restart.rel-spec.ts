import { ExecutionRow, useCluster } from './support/cluster.js';
import { OrbitClient } from './support/http.js';
import { countBy, ms, percentile, printFigures, sleep, waitFor } from './support/util.js';

const BEFORE_MS = 6000;
const DOWN_MS = 5000;
const AFTER_MS = 12_000;
/** Manual runs queued per round of the stream, one round every STREAM_EVERY_MS, alternating nodes. */
const STREAM_BURST = 5;
const STREAM_EVERY_MS = 500;
const LEASE_SECONDS = 10;
/**
 * A long fallback poll: a worker or scheduler whose pass failed while PostgreSQL was away waits
 * this long before it tries again by itself, so quick claims and fires after the restart show
 * that LISTEN came back (its reconnect wakes both) rather than the poll.
 */
const POLL_MS = 15_000;

interface Attempt {
  at: number;
  node: string;
  status: number | 'network error';
  id?: string;
  message?: string;
}

describe('reliability: database restart', () => {
  const cluster = useCluster('restart');

  it('keeps running through a PostgreSQL restart: both nodes reconnect, nothing is stuck, no slot fires twice', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const env = {
        ORBIT_WORKER_CONCURRENCY: '3',
        ORBIT_LEASE_SECONDS: String(LEASE_SECONDS),
        ORBIT_HEARTBEAT_SECONDS: '2',
        ORBIT_POLL_INTERVAL_MS: String(POLL_MS),
      };
      const nodes = await c.startNodes({ name: 'node-1', role: 'all', env }, { name: 'node-2', role: 'all', env });
      const clients: [string, OrbitClient][] = nodes.map((node) => [node.name, c.client(node)]);
      const api = clients[0]![1];
      const tick = await api.createJob({
        name: 'tick',
        command: 'true',
        cronExpression: '* * * * * *',
        timeoutSeconds: 60,
      });
      const manual = await api.createJob({
        name: 'manual',
        command: 'sleep 0.3',
        cronExpression: '0 0 1 1 *',
        enabled: false,
        timeoutSeconds: 60,
      });

      // a stream of manual runs over HTTP, to both nodes, through the outage
      const attempts: Attempt[] = [];
      let streaming = true;
      const stream = (async () => {
        for (let round = 0; streaming; round++) {
          await Promise.all(
            Array.from({ length: STREAM_BURST }, async (_, i) => {
              const [node, client] = clients[(round + i) % clients.length]!;
              const at = Date.now();
              try {
                const reply = await client.request('POST', `/jobs/${manual.id}/executions`);
                attempts.push({
                  at,
                  node,
                  status: reply.status,
                  id: reply.body.id as string | undefined,
                  message: reply.status === 201 ? undefined : String(reply.body.message),
                });
              } catch {
                attempts.push({ at, node, status: 'network error' });
              }
            }),
          );
          await sleep(STREAM_EVERY_MS);
        }
      })();

      await sleep(BEFORE_MS);
      const downAt = Date.now();
      await c.postgres.stop();
      const stoppedAt = Date.now();
      await sleep(DOWN_MS);
      await c.postgres.startAgain();
      const upAt = Date.now();
      await sleep(AFTER_MS);
      streaming = false;
      await stream;

      // stop the schedule (the API may still be catching up: a few tries)
      await waitFor(
        () =>
          api.updateJob(tick.id as string, { enabled: false }).then(
            () => true,
            () => undefined,
          ),
        'the tick job to be disabled',
        20_000,
        500,
      );
      const settleFrom = Date.now();
      const open = await waitFor(
        async () => {
          const [row] = await c.sql<{ open: number }>(
            `SELECT count(*)::int AS open FROM executions WHERE status IN ('QUEUED', 'RUNNING')`,
          );
          return row!.open === 0 ? 0 : undefined;
        },
        'nothing QUEUED or RUNNING',
        (LEASE_SECONDS + 30) * 1000,
        250,
      ).catch(() => -1);
      const settledMs = Date.now() - settleFrom;

      // An idle cluster, the poll 15 s: a run queued through one node while the other is frozen
      // (SIGSTOP) must be claimed by that node within moments, which only its LISTEN can do.
      const probes: Record<string, { row: ExecutionRow; latencyMs: number }> = {};
      for (const [index, node] of nodes.entries()) {
        const other = nodes[1 - index]!;
        other.signal('SIGSTOP');
        try {
          const probe = await clients[index]![1].trigger(manual.id as string);
          const row = await waitFor(
            async () => {
              const [found] = await c.sql<ExecutionRow>('SELECT * FROM executions WHERE id = $1', [probe.id]);
              return found && !['QUEUED', 'RUNNING'].includes(found.status) ? found : undefined;
            },
            `the probe run through ${node.name} to finish`,
            POLL_MS + 15_000,
            20,
          );
          probes[node.name] = { row, latencyMs: row.started_at!.getTime() - row.created_at.getTime() };
        } finally {
          other.signal('SIGCONT');
        }
      }

      const rows = await c.sql<ExecutionRow>('SELECT * FROM executions ORDER BY created_at');
      const byId = new Map(rows.map((row) => [row.id, row]));
      const createdAfter = attempts.filter((attempt) => attempt.status === 201 && attempt.at >= upAt);
      const afterRows = createdAfter.map((attempt) => byId.get(attempt.id!)).filter((row) => row !== undefined);
      const notSucceededAfter = afterRows.filter((row) => row.status !== 'SUCCEEDED');
      const startedAfter = rows.filter((row) => row.started_at && row.started_at.getTime() >= upAt);
      const claimersAfter = countBy(startedAfter, (row) => c.nodeOfWorker(row.worker_id)?.name ?? `?${row.worker_id}`);
      const firstClaimAfter = Object.fromEntries(
        nodes.map((node) => {
          const starts = startedAfter
            .filter((row) => row.worker_id === node.workerId)
            .map((r) => r.started_at!.getTime());
          return [node.name, starts.length > 0 ? Math.min(...starts) - upAt : NaN];
        }),
      );
      const restored = Object.fromEntries(
        nodes.map((node) => [node.name, node.find(/LISTEN connection restored/, upAt - 1000)?.at]),
      );
      const slots = await c.sql<{ job_id: string; scheduled_for: Date; n: number }>(
        `SELECT job_id, scheduled_for, count(*)::int AS n FROM executions WHERE trigger = 'SCHEDULE'
         GROUP BY job_id, scheduled_for ORDER BY scheduled_for`,
      );
      const twice = slots.filter((slot) => slot.n > 1);
      const slotTimes = slots.map((slot) => slot.scheduled_for.getTime());
      const firesAfter = slotTimes.filter((time) => time >= upAt);
      const missedSlots = slotTimes.slice(1).reduce((sum, time, i) => sum + (time - slotTimes[i]!) / 1000 - 1, 0);
      // the log line is a figure, not the proof (the probes are): without it, assume the longest reconnect backoff
      const lastRestored = Math.max(...nodes.map((node) => restored[node.name] ?? upAt + 6000));
      const lateLatency = afterRows
        .filter((row) => row.created_at.getTime() >= upAt + 3000 && row.started_at)
        .map((row) => row.started_at!.getTime() - row.created_at.getTime());
      // once LISTEN is back, the schedule runs again without a gap
      const slotsAfterRestore = slotTimes.filter((time) => time >= lastRestored + 1000);
      const gapsAfterRestore = slotsAfterRestore.filter(
        (time, i) => i > 0 && time - slotsAfterRestore[i - 1]! !== 1000,
      );
      const statusesBy = (from: number, to: number) =>
        JSON.stringify(
          countBy(
            rows.filter(
              (row) => row.trigger !== 'SCHEDULE' && row.created_at.getTime() >= from && row.created_at.getTime() < to,
            ),
            (row) => row.status,
          ),
        );
      const failures = countBy(
        rows.filter((row) => row.status === 'FAILED'),
        (row) => row.error_message ?? '',
      );

      printFigures(`database restart (2 all nodes, PostgreSQL down ${DOWN_MS / 1000}s)`, {
        'PostgreSQL stop took': ms(stoppedAt - downAt),
        'PostgreSQL down (stop → started again)': ms(upAt - stoppedAt),
        'POSTs 201 / refused / network errors': `${attempts.filter((x) => x.status === 201).length} / ${
          attempts.filter((x) => typeof x.status === 'number' && x.status !== 201).length
        } / ${attempts.filter((x) => x.status === 'network error').length}`,
        'refused answers': JSON.stringify(
          countBy(
            attempts.filter((x) => x.status !== 201),
            (x) => `${x.status} ${x.message ?? ''}`,
          ),
        ),
        ...Object.fromEntries(
          nodes.map((node) => [`${node.name}: LISTEN restored after restart`, ms((restored[node.name] ?? NaN) - upAt)]),
        ),
        ...Object.fromEntries(
          nodes.map((node) => [`${node.name}: first claim after restart`, ms(firstClaimAfter[node.name]!)]),
        ),
        'claims after restart': JSON.stringify(claimersAfter),
        'manual runs created after restart': `${afterRows.length} (not SUCCEEDED: ${notSucceededAfter.length})`,
        'queue → start after restart p50 / max': `${ms(percentile(lateLatency, 0.5))} / ${ms(Math.max(...lateLatency))}`,
        'runs created before / during / after the outage': `${statusesBy(0, downAt)} / ${statusesBy(downAt, upAt)} / ${statusesBy(upAt, Infinity)}`,
        'FAILED runs by message': JSON.stringify(failures),
        'slots fired / after restart / fired twice': `${slots.length} / ${firesAfter.length} / ${twice.length}`,
        'slots skipped (outage, misfire policy)': missedSlots,
        'slots after LISTEN restored / gaps': `${slotsAfterRestore.length} / ${gapsAfterRestore.length}`,
        'settle: nothing QUEUED or RUNNING after': open === 0 ? ms(settledMs) : 'never',
        ...Object.fromEntries(
          nodes.map((node) => [
            `idle probe via ${node.name} (other frozen): queue → start`,
            `${ms(probes[node.name]!.latencyMs)} on ${c.nodeOfWorker(probes[node.name]!.row.worker_id)?.name}`,
          ]),
        ),
      });

      expect(nodes.map((node) => node.alive)).toEqual([true, true]);
      expect(afterRows.length).toBeGreaterThan(0);
      expect(notSucceededAfter.map((row) => `${row.id} ${row.status} ${row.error_message}`)).toEqual([]);
      // both workers claim again after the restart
      for (const node of nodes) expect(claimersAfter[node.name]).toBeGreaterThan(0);
      expect(open).toBe(0);
      expect(twice).toEqual([]);
      expect(slotsAfterRestore.length).toBeGreaterThanOrEqual(2);
      expect(gapsAfterRestore).toEqual([]);
      for (const node of nodes) {
        const { row, latencyMs } = probes[node.name]!;
        expect({ status: row.status, worker: row.worker_id }).toEqual({ status: 'SUCCEEDED', worker: node.workerId });
        expect(latencyMs).toBeLessThan(2000);
      }
    }));
});
