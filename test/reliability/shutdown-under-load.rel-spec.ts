import { join } from 'node:path';
import { ExecutionRow, useCluster } from './support/cluster.js';
import { readPids, recordingPid, stillAlive } from './support/pids.js';
import { childrenOf, isAlive, mapLimit, ms, printFigures, waitFor } from './support/util.js';

const RUNS = 10;
const SHUTDOWN_GRACE_SECONDS = 3;
const KILL_GRACE_SECONDS = 1;
const SLACK_SECONDS = 6;

describe('reliability: shutdown under load', () => {
  const cluster = useCluster('shutdown');

  it(`stops a node running ${RUNS} long commands within its graces, fails them, and their retries run on another node`, () =>
    cluster().scenario(async () => {
      const c = cluster();
      const graces = {
        ORBIT_SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS),
        ORBIT_KILL_GRACE_SECONDS: String(KILL_GRACE_SECONDS),
        ORBIT_WORKER_CONCURRENCY: String(RUNS),
      };
      const [apiNode, a] = await c.startNodes(
        { name: 'api', role: 'api' },
        { name: 'worker-a', role: 'worker', env: graces },
      );
      const api = c.client(apiNode!);
      const pidFile = join(c.workDir, 'shutdown-pids.txt');
      const job = await api.createJob({
        name: 'long',
        command: recordingPid(pidFile, 'sleep 1000'),
        cronExpression: '0 0 1 1 *',
        enabled: false,
        maxRetries: 1,
        timeoutSeconds: 3600,
      });
      const jobId = job.id as string;
      await mapLimit(Array.from({ length: RUNS }), 5, () => api.trigger(jobId));
      await waitFor(
        async () => {
          const rows = await c.executionsOfJob(jobId);
          const onA = rows.filter((row) => row.status === 'RUNNING' && row.worker_id === a!.workerId);
          return onA.length === RUNS && readPids(pidFile).length === RUNS ? true : undefined;
        },
        `${RUNS} executions RUNNING on worker-a with their pids recorded`,
        20_000,
        50,
      );

      // B starts only now: A holds all ten, B has nothing to take until A lets go
      const b = await c.startNode({ name: 'worker-b', role: 'worker', env: graces });
      const onA = readPids(pidFile);
      const spawners = childrenOf(a!.pid);
      const runningBeforeTerm = stillAlive(onA).length;

      const termAt = Date.now();
      a!.signal('SIGTERM');
      const exit = await a!.exited;
      const exitAfter = exit.at - termAt;
      const orphansAtExit = stillAlive(onA);
      const spawnersAlive = spawners.filter(isAlive);

      const firsts = (await c.executionsOfJob(jobId)).filter((row) => row.attempt === 1);
      const retries = await waitFor(
        async () => {
          const rows = (await c.executionsOfJob(jobId)).filter((row) => row.trigger === 'RETRY');
          const claimed = rows.filter((row) => row.status === 'RUNNING');
          const started = readPids(pidFile).filter((entry) => entry.attempt === 2);
          return claimed.length === RUNS && started.length === RUNS ? rows : undefined;
        },
        `the ${RUNS} retries to run on worker-b`,
        30_000,
        100,
      );
      const retriesRunningAfter = Math.max(...retries.map((row) => row.started_at!.getTime())) - termAt;

      // and B, stopped in turn, leaves nothing behind either (its runs have no retries left)
      const bTermAt = Date.now();
      const bExit = await b.stop(30_000);
      const all = readPids(pidFile);
      const orphansAtEnd = stillAlive(all);
      const final = await c.executionsOfJob(jobId);
      const open = final.filter((row) => ['QUEUED', 'RUNNING'].includes(row.status));

      printFigures(
        `shutdown under load (${RUNS} × sleep 1000, grace ${SHUTDOWN_GRACE_SECONDS}s + kill grace ${KILL_GRACE_SECONDS}s)`,
        {
          'commands running at SIGTERM': `${runningBeforeTerm} / ${RUNS}`,
          'SIGTERM → worker-a exited': ms(exitAfter),
          'bound: grace + kill grace + slack': ms((SHUTDOWN_GRACE_SECONDS + KILL_GRACE_SECONDS + SLACK_SECONDS) * 1000),
          'worker-a exit code': `${exit.code} (signal ${exit.signal})`,
          "worker-a's commands alive after its exit": orphansAtExit.length,
          "worker-a's spawner alive after its exit": `${spawnersAlive.length} (of ${spawners.length})`,
          'SIGTERM → all retries RUNNING on worker-b': ms(retriesRunningAfter),
          'worker-b stop (SIGTERM → exit)': ms(bExit.at - bTermAt),
          'recorded processes alive at the end': orphansAtEnd.length,
          'queued or running at the end': open.length,
        },
      );

      expect(runningBeforeTerm).toBe(RUNS);
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exitAfter).toBeGreaterThanOrEqual(SHUTDOWN_GRACE_SECONDS * 1000 - 100); // the grace was given
      expect(exitAfter).toBeLessThanOrEqual((SHUTDOWN_GRACE_SECONDS + KILL_GRACE_SECONDS + SLACK_SECONDS) * 1000);
      expect(orphansAtExit).toEqual([]);
      expect(spawners.length).toBeGreaterThan(0);
      expect(spawnersAlive).toEqual([]);

      expect(firsts).toHaveLength(RUNS);
      for (const row of firsts) {
        expect({ status: row.status, exitCode: row.exit_code, worker: row.worker_id }).toEqual({
          status: 'FAILED',
          exitCode: -1,
          worker: a!.workerId,
        });
        expect(row.error_message).toMatch(/^Worker shut down/);
      }
      expect(retries.map((row) => row.retry_of).sort()).toEqual(firsts.map((row) => row.id).sort());
      for (const row of retries) {
        expect({ attempt: row.attempt, worker: row.worker_id }).toEqual({ attempt: 2, worker: b.workerId });
      }

      expect(bExit).toMatchObject({ code: 0, signal: null });
      expect(orphansAtEnd).toEqual([]);
      expect(open).toEqual([]);
      const attemptsTwo = final.filter((row: ExecutionRow) => row.attempt === 2);
      expect(attemptsTwo.every((row) => row.status === 'FAILED' && /^Worker shut down/.test(row.error_message!))).toBe(
        true,
      );
      expect(final).toHaveLength(2 * RUNS); // attempt 2 of 1 + 1 retries: nothing more
    }));
});
