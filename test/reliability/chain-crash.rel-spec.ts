import { useCluster } from './support/cluster.js';
import type { OrbitNode } from './support/orbit-node.js';
import { printFigures, sleep, waitFor } from './support/util.js';

/** Runs of A per scenario: each kills the node that runs it, at a different moment of its completion. */
const ROUNDS = 4;
/** A's command runs this long; the kill falls just before its end, or just after its outcome committed. */
const RUN_MS = 600;

describe('reliability: chains across nodes and crashes', () => {
  const cluster = useCluster('chain-crash');

  it('three nodes, kill -9 of the node running A as it completes: every final outcome of A gives B exactly once', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const env = { ORBIT_POLL_INTERVAL_MS: '200', ORBIT_LEASE_SECONDS: '3', ORBIT_HEARTBEAT_SECONDS: '1' };
      let nodes: OrbitNode[] = await c.startNodes(
        { name: 'n1', role: 'all', env },
        { name: 'n2', role: 'all', env },
        { name: 'n3', role: 'all', env },
      );
      const client = () => c.client(nodes.find((node) => node.exit === undefined)!);
      const a = await client().expect(201, 'POST', '/jobs', {
        name: 'a',
        command: `sleep ${RUN_MS / 1000}`,
        cronExpression: null,
      });
      const b = await client().expect(201, 'POST', '/jobs', {
        name: 'b',
        command: 'true',
        cronExpression: null,
        triggers: [{ after: 'a', on: ['SUCCEEDED', 'FAILED', 'CANCELLED'] }],
      });

      const kills: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const run = await client().trigger(a.id as string);
        const running = await waitFor(
          async () => {
            const [row] = await c.sql<{ status: string; worker_id: string | null; started_at: Date | null }>(
              'SELECT status, worker_id, started_at FROM executions WHERE id = $1',
              [run.id],
            );
            return row?.status === 'RUNNING' ? row : undefined;
          },
          `round ${round}: A to run`,
          20_000,
          10,
        );
        const victim = c.nodeOfWorker(running.worker_id)!;
        if (round % 2 === 0) {
          // just after the outcome committed: the event is new, and the victim's consumer is taking it
          await waitFor(
            async () => {
              const [row] = await c.sql<{ status: string }>('SELECT status FROM executions WHERE id = $1', [run.id]);
              return row?.status !== 'RUNNING' ? true : undefined;
            },
            `round ${round}: A to complete`,
            20_000,
            2,
          );
          kills.push('after the outcome');
        } else {
          // just before the command ends: the outcome is the reaper's (worker_lost) on another node
          await sleep(Math.max(0, running.started_at!.getTime() + RUN_MS - 60 - Date.now()));
          kills.push('before the outcome');
        }
        victim.signalGroup('SIGKILL');
        await victim.exited;
        const replacement = await c.startNode({ name: `${victim.name}-r${round}`, role: 'all', env });
        nodes = [...nodes.filter((node) => node !== victim), replacement];
      }

      const finals = await waitFor(
        async () => {
          const rows = await c.sql<{ id: string; status: string }>(
            `SELECT e.id, e.status FROM executions e WHERE e.job_id = $1`,
            [a.id],
          );
          return rows.length >= ROUNDS && rows.every((row) => ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(row.status))
            ? rows
            : undefined;
        },
        'every run of A to be final',
        60_000,
        200,
      );
      const lastSeq = (await c.sql<{ seq: string }>('SELECT max(seq) AS seq FROM events'))[0]!.seq;
      await waitFor(
        async () => {
          const [cursor] = await c.sql<{ after_seq: string }>(
            `SELECT after_seq FROM event_cursors WHERE consumer = 'chains'`,
          );
          return cursor && Number(cursor.after_seq) >= Number(lastSeq) ? true : undefined;
        },
        'the chains consumer to be past every outcome of A',
        30_000,
        100,
      );
      const chained = await c.sql<{ triggered_by: string; n: string }>(
        `SELECT triggered_by, count(*) AS n FROM executions WHERE job_id = $1 AND trigger = 'CHAIN' GROUP BY triggered_by`,
        [b.id],
      );
      const perUpstream = new Map(chained.map((row) => [row.triggered_by, Number(row.n)]));
      printFigures('Chains across crashes', {
        'runs of A': finals.length,
        'outcomes of A': finals.map((row) => row.status).join(', '),
        kills: kills.join(', '),
        'runs of B': [...perUpstream.values()].reduce((sum, n) => sum + n, 0),
      });
      expect(Object.fromEntries(finals.map((row) => [row.id, perUpstream.get(row.id) ?? 0]))).toEqual(
        Object.fromEntries(finals.map((row) => [row.id, 1])),
      );
      expect([...perUpstream.keys()].every((id) => finals.some((row) => row.id === id))).toBe(true);
    }));
});
