import { useCluster } from './support/cluster.js';
import { Reply } from './support/http.js';
import { countBy, mapLimit, ms, percentile, printFigures } from './support/util.js';

const EXECUTIONS = 200;
/** Pairs in flight at once (each pair is two simultaneous requests). */
const PARALLEL_PAIRS = 8;
const SUCCEED_REFUSED = 'Only running executions can succeed';
const CANCEL_REFUSED = 'Only queued or running executions can be cancelled';

interface Race {
  id: string;
  succeed: Reply;
  cancel: Reply;
}

describe('reliability: races over HTTP', () => {
  const cluster = useCluster('races');

  it(`lets exactly one of succeed (node A) and cancel (node B) win, for each of ${EXECUTIONS} running executions`, () =>
    cluster().scenario(async () => {
      const c = cluster();
      const [nodeA, nodeB] = await c.startNodes({ name: 'api-a', role: 'api' }, { name: 'api-b', role: 'api' });
      const a = c.client(nodeA!);
      const b = c.client(nodeB!);
      const job = await a.createJob({
        name: 'races',
        command: 'true',
        cronExpression: '0 0 1 1 *',
        enabled: false,
        maxRetries: 3, // a retry would be queued by a fail; neither succeed nor cancel may queue one
      });
      const ids = await mapLimit(Array.from({ length: EXECUTIONS }), 10, async (_, i) => {
        const execution = await (i % 2 === 0 ? a : b).trigger(job.id as string);
        return execution.id as string;
      });
      await mapLimit(ids, 10, async (id, i) => {
        const started = await (i % 2 === 0 ? b : a).expect(200, 'POST', `/executions/${id}/start`);
        expect(started.status).toBe('RUNNING');
      });

      const races = await mapLimit(ids, PARALLEL_PAIRS, async (id): Promise<Race> => {
        const [succeed, cancel] = await Promise.all([
          a.request('POST', `/executions/${id}/succeed`, { exitCode: 0 }),
          b.request('POST', `/executions/${id}/cancel`),
        ]);
        return { id, succeed, cancel };
      });

      const rows = await c.executionsOfJob(job.id as string);
      const final = new Map(rows.map((row) => [row.id, row]));
      const anomalies: string[] = [];
      for (const { id, succeed, cancel } of races) {
        const row = final.get(id);
        const codes = `succeed ${succeed.status} / cancel ${cancel.status}`;
        if (succeed.status === 200 && cancel.status === 409) {
          if (cancel.body.message !== CANCEL_REFUSED)
            anomalies.push(`${id}: ${codes}, cancel said ${cancel.body.message}`);
          if (succeed.body.status !== 'SUCCEEDED' || row?.status !== 'SUCCEEDED' || row.exit_code !== 0) {
            anomalies.push(`${id}: succeed won but the answer says ${succeed.body.status}, the row ${row?.status}`);
          }
        } else if (cancel.status === 200 && succeed.status === 409) {
          if (succeed.body.message !== SUCCEED_REFUSED) {
            anomalies.push(`${id}: ${codes}, succeed said ${succeed.body.message}`);
          }
          if (cancel.body.status !== 'CANCELLED' || row?.status !== 'CANCELLED' || row.exit_code !== null) {
            anomalies.push(`${id}: cancel won but the answer says ${cancel.body.status}, the row ${row?.status}`);
          }
        } else {
          anomalies.push(`${id}: ${codes} (${JSON.stringify(succeed.body)} / ${JSON.stringify(cancel.body)})`);
        }
        if (row?.finished_at === null) anomalies.push(`${id}: no finished_at`);
      }
      const succeedWins = races.filter((race) => race.succeed.status === 200).map((race) => race.id);
      const cancelWins = races.filter((race) => race.cancel.status === 200).map((race) => race.id);
      const audited = await c.sql<{ target_id: string }>(
        `SELECT target_id FROM audit_events WHERE action = 'execution.cancelled'`,
      );
      const pairMs = races.map((race) => Math.max(race.succeed.tookMs, race.cancel.tookMs));
      const loserMs = races.map((race) => (race.succeed.status === 409 ? race.succeed : race.cancel).tookMs);

      printFigures(`races over HTTP (${EXECUTIONS} pairs, ${PARALLEL_PAIRS} pairs in flight, 2 api nodes)`, {
        'succeed (node A) won': succeedWins.length,
        'cancel (node B) won': cancelWins.length,
        'pairs not 200 + 409 / wrong message / wrong state': anomalies.length,
        'final statuses': JSON.stringify(countBy(rows, (row) => row.status)),
        'pair p50 / p99': `${ms(percentile(pairMs, 0.5))} / ${ms(percentile(pairMs, 0.99))}`,
        'loser (409) p50 / p99': `${ms(percentile(loserMs, 0.5))} / ${ms(percentile(loserMs, 0.99))}`,
        'cancel audit events': audited.length,
      });

      expect(anomalies).toEqual([]);
      expect(succeedWins.length + cancelWins.length).toBe(EXECUTIONS);
      expect(rows).toHaveLength(EXECUTIONS); // no retry was queued by either side
      expect(countBy(rows, (row) => row.status)).toEqual({
        ...(succeedWins.length > 0 ? { SUCCEEDED: succeedWins.length } : {}),
        ...(cancelWins.length > 0 ? { CANCELLED: cancelWins.length } : {}),
      });
      // a refused cancel leaves no trace in the audit trail; each winning cancel exactly one
      expect(audited.map((event) => event.target_id).sort()).toEqual([...cancelWins].sort());
    }));
});
