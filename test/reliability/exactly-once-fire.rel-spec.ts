import { useCluster } from './support/cluster.js';
import { countBy, ms, percentile, printFigures, seconds, sleep, waitFor } from './support/util.js';

const WINDOW_MS = 20_000;
/** How far from the window's ends the first and last fired slots may lie (a loaded machine). */
const EDGE_SLACK_MS = 3000;

describe('reliability: exactly-once fire', () => {
  const cluster = useCluster('fire');

  it('fires a job of every second exactly once per slot, with no slot missing, on three schedulers', () =>
    cluster().scenario(async () => {
      const c = cluster();
      const nodes = await c.startNodes(
        { name: 'node-1', role: 'all' },
        { name: 'node-2', role: 'worker' },
        { name: 'node-3', role: 'worker' },
      );
      const api = c.client(nodes[0]!);
      const job = await api.createJob({
        name: 'every-second',
        command: 'true',
        cronExpression: '* * * * * *',
        timeoutSeconds: 60,
      });
      const createdAt = new Date(job.createdAt as string).getTime();
      await sleep(WINDOW_MS);
      await api.updateJob(job.id as string, { enabled: false });
      const disabledAt = Date.now();
      await waitFor(
        async () => {
          const open = (await c.executionsOfJob(job.id as string)).filter((row) =>
            ['QUEUED', 'RUNNING'].includes(row.status),
          );
          return open.length === 0 ? true : undefined;
        },
        'the fired executions to finish',
        60_000,
        250,
      );

      const rows = await c.executionsOfJob(job.id as string);
      const scheduled = rows.filter((row) => row.trigger === 'SCHEDULE');
      const slots = scheduled.map((row) => row.scheduled_for!.getTime()).sort((a, b) => a - b);
      const distinct = new Set(slots);
      const duplicates = slots.filter((slot, i) => i > 0 && slot === slots[i - 1]);
      const gaps: string[] = [];
      for (let i = 1; i < slots.length; i++) {
        const step = slots[i]! - slots[i - 1]!;
        if (step > 1000) gaps.push(`${new Date(slots[i - 1]!).toISOString()} → ${new Date(slots[i]!).toISOString()}`);
      }
      const first = slots[0] ?? NaN;
      const last = slots[slots.length - 1] ?? NaN;
      const fireLag = scheduled.map((row) => row.created_at.getTime() - row.scheduled_for!.getTime());
      const claims = countBy(scheduled, (row) => c.nodeOfWorker(row.worker_id)?.name ?? `unknown ${row.worker_id}`);
      const misfireWarnings = nodes.reduce(
        (sum, node) => sum + node.count(/slot\(s\) passed while no scheduler ran/),
        0,
      );

      printFigures('exactly-once fire (job `* * * * * *`, 1 all + 2 worker nodes)', {
        window: seconds(disabledAt - createdAt),
        'slots fired': slots.length,
        'distinct slots': distinct.size,
        'slots fired twice': duplicates.length,
        'missing slots (gaps)': gaps.length,
        'job created → first slot': ms(first - createdAt),
        'last slot → disabled': ms(disabledAt - last),
        'slot → execution created p50 / p99 / max': `${ms(percentile(fireLag, 0.5))} / ${ms(percentile(fireLag, 0.99))} / ${ms(Math.max(...fireLag))}`,
        ...Object.fromEntries(nodes.map((node) => [`runs claimed by ${node.name}`, claims[node.name] ?? 0])),
        'misfire warnings in the logs': misfireWarnings,
        statuses: JSON.stringify(countBy(rows, (row) => row.status)),
      });

      expect(rows).toHaveLength(scheduled.length); // nothing but the schedule ran
      expect(duplicates).toEqual([]);
      expect(distinct.size).toBe(slots.length);
      expect(slots.every((slot) => slot % 1000 === 0)).toBe(true);
      expect(gaps).toEqual([]);
      // the run covers the window: no slot lost at its start or its end while the nodes were alive
      expect(slots.length).toBeGreaterThanOrEqual(Math.floor((WINDOW_MS - 2 * EDGE_SLACK_MS) / 1000));
      expect(first - createdAt).toBeLessThanOrEqual(EDGE_SLACK_MS);
      expect(disabledAt - last).toBeLessThanOrEqual(EDGE_SLACK_MS);
      expect(countBy(rows, (row) => row.status)).toEqual({ SUCCEEDED: rows.length });
      expect(nodes.every((node) => node.alive)).toBe(true);
    }));
});
