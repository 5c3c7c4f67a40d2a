import { join } from 'node:path';
import { ExecutionRow, QueueableJob, useCluster } from './support/cluster.js';
import { readPids, recordingPid, stillAlive } from './support/pids.js';
import { childrenOf, isAlive, ms, printFigures, waitFor } from './support/util.js';

const RUNS = 20;
const LEASE_SECONDS = 4;
const HEARTBEAT_SECONDS = 1;
/** The lease reaper sweeps every min(heartbeat, 5) seconds. */
const SWEEP_SECONDS = Math.min(HEARTBEAT_SECONDS, 5);
const SLACK_SECONDS = 5;

describe('reliability: worker crash', () => {
  const cluster = useCluster('crash');

  it(`fails the ${RUNS} runs of a worker whose process group is SIGKILLed once their leases expire, and retries them on the survivor`, () =>
    cluster().scenario(async () => {
      const c = cluster();
      const env = {
        ORBIT_LEASE_SECONDS: String(LEASE_SECONDS),
        ORBIT_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
        ORBIT_WORKER_CONCURRENCY: String(RUNS),
      };
      const [apiNode, a, b] = await c.startNodes(
        { name: 'api', role: 'api' },
        { name: 'worker-a', role: 'worker', env },
        { name: 'worker-b', role: 'worker', env },
      );
      const api = c.client(apiNode!);
      const pidFile = join(c.workDir, 'crash-pids.txt');
      const job = await api.createJob({
        name: 'crash',
        command: recordingPid(pidFile, 'sleep 5'),
        cronExpression: '0 0 1 1 *',
        enabled: false,
        maxRetries: 1,
        timeoutSeconds: 60,
      });
      const jobId = job.id as string;
      const firstAttempts = (rows: ExecutionRow[]) => rows.filter((row) => row.attempt === 1);

      // B is frozen (SIGSTOP) while A claims, so that every run is A's when A dies; it is thawed before the kill
      b!.signal('SIGSTOP');
      let running: ExecutionRow[];
      try {
        // one INSERT, so that A claims all of them in one pass and the kill comes well within their 5 s
        await c.queueMany(job as QueueableJob, RUNS);
        running = await waitFor(
          async () => {
            const rows = firstAttempts(await c.executionsOfJob(jobId));
            const mine = rows.filter((row) => row.status === 'RUNNING' && row.worker_id === a!.workerId);
            const started = readPids(pidFile).filter((entry) => entry.attempt === 1);
            return mine.length === RUNS && started.length === RUNS ? mine : undefined;
          },
          `${RUNS} executions RUNNING on worker-a with their pids recorded`,
          20_000,
          50,
        );
      } finally {
        b!.signal('SIGCONT');
      }
      const doomed = readPids(pidFile).filter((entry) => entry.attempt === 1);
      const aliveBeforeKill = stillAlive(doomed).length;
      const spawners = childrenOf(a!.pid);
      const firstStart = Math.min(...running.map((row) => row.started_at!.getTime()));

      const killedAt = Date.now();
      a!.signalGroup('SIGKILL');
      await a!.exited;

      const reaped = await waitFor(
        async () => {
          const rows = firstAttempts(await c.executionsOfJob(jobId));
          return rows.every((row) => row.status !== 'RUNNING') ? rows : undefined;
        },
        `the ${RUNS} runs of the dead worker to be failed`,
        (LEASE_SECONDS + SWEEP_SECONDS + SLACK_SECONDS) * 1000 + 20_000,
        100,
      );
      const reapedAfter = reaped.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt);
      const orphansAtReap = stillAlive(doomed);
      const spawnersAlive = spawners.filter(isAlive);

      const retries = await waitFor(
        async () => {
          const rows = (await c.executionsOfJob(jobId)).filter((row) => row.trigger === 'RETRY');
          return rows.length === RUNS && rows.every((row) => !['QUEUED', 'RUNNING'].includes(row.status))
            ? rows
            : undefined;
        },
        `the ${RUNS} retries to finish`,
        60_000,
        200,
      );
      const retriesDoneAfter = Math.max(...retries.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt));
      const all = readPids(pidFile);
      const orphansAtEnd = stillAlive(all);

      printFigures(`worker crash (${RUNS} × sleep 5, lease ${LEASE_SECONDS}s, heartbeat ${HEARTBEAT_SECONDS}s)`, {
        'first start → SIGKILL': ms(killedAt - firstStart),
        'commands alive at the kill': `${aliveBeforeKill} / ${RUNS}`,
        'SIGKILL → first failed': ms(Math.min(...reapedAfter)),
        'SIGKILL → last failed': ms(Math.max(...reapedAfter)),
        'bound: lease + sweep + slack': ms((LEASE_SECONDS + SWEEP_SECONDS + SLACK_SECONDS) * 1000),
        "dead worker's commands alive at reap": orphansAtReap.length,
        "dead worker's spawner alive at reap": `${spawnersAlive.length} (of ${spawners.length})`,
        'SIGKILL → all retries finished': ms(retriesDoneAfter),
        'retries succeeded on worker-b': retries.filter((r) => r.status === 'SUCCEEDED' && r.worker_id === b!.workerId)
          .length,
        'recorded processes alive at the end': orphansAtEnd.length,
        "'lost its lease' warnings on worker-b": b!.count(/lost its lease/),
      });

      expect(aliveBeforeKill).toBe(RUNS);
      expect(spawners.length).toBeGreaterThan(0);
      for (const row of reaped) {
        expect({ status: row.status, errorMessage: row.error_message, exitCode: row.exit_code }).toEqual({
          status: 'FAILED',
          errorMessage: 'Worker lost: lease expired',
          exitCode: -1,
        });
        expect(row.worker_id).toBe(a!.workerId);
        expect(row.lease_expires_at).toBeNull();
      }
      // not before the kill (the worker held its leases while it lived), and within lease + one sweep + slack
      expect(Math.min(...reapedAfter)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...reapedAfter)).toBeLessThanOrEqual((LEASE_SECONDS + SWEEP_SECONDS + SLACK_SECONDS) * 1000);
      expect(orphansAtReap).toEqual([]);
      expect(spawnersAlive).toEqual([]);

      // one retry per lost run, each on the survivor, each successful
      expect(retries.map((row) => row.retry_of).sort()).toEqual(reaped.map((row) => row.id).sort());
      for (const row of retries) {
        expect({ status: row.status, attempt: row.attempt, exitCode: row.exit_code, worker: row.worker_id }).toEqual({
          status: 'SUCCEEDED',
          attempt: 2,
          exitCode: 0,
          worker: b!.workerId,
        });
      }
      expect(all.filter((entry) => entry.attempt === 2)).toHaveLength(RUNS);
      expect(orphansAtEnd).toEqual([]);
      expect(b!.alive).toBe(true);
    }));
});
