import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionRow, QueueableJob, useCluster } from './support/cluster.js';
import { OrbitClient } from './support/http.js';
import { OrbitNode } from './support/orbit-node.js';
import { childrenOf, isAlive, ms, printFigures, waitFor } from './support/util.js';

const RUNS = 4;
const LEASE_SECONDS = 4;
const env = {
  ORBIT_LEASE_SECONDS: String(LEASE_SECONDS),
  ORBIT_HEARTBEAT_SECONDS: '1',
  ORBIT_WORKER_CONCURRENCY: String(RUNS),
};

/**
 * A first attempt is a shell with a background child, both recorded; a retry records how many
 * processes of the first attempts it still saw running when it started, then succeeds.
 */
function command(pidFile: string, retryFile: string): string {
  return [
    'if [ "$ORBIT_ATTEMPT" = 1 ]; then',
    `  sleep 60 & echo "$ORBIT_EXECUTION_ID $$ $!" >> ${pidFile}; wait`,
    'else',
    '  alive=0',
    `  for pid in $(cut -d' ' -f2,3 ${pidFile}); do`,
    `    state=$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)`,
    '    if [ -n "$state" ] && [ "$state" != Z ]; then alive=$((alive + 1)); fi',
    '  done',
    `  echo "$ORBIT_EXECUTION_ID $alive" >> ${retryFile}`,
    'fi',
  ].join('\n');
}

function lines(file: string): string[][] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' '))
    : [];
}

describe('reliability: no command outlives what accounts for it', () => {
  const cluster = useCluster('orphans');
  let api: OrbitClient;
  let jobs = 0;

  beforeAll(async () => {
    const c = cluster();
    api = c.client(await c.startNode({ name: 'api', role: 'api' }));
  });

  /** Queues RUNS first attempts on `victim` alone (`others` frozen meanwhile) and waits until all run. */
  async function runOn(victim: OrbitNode, others: OrbitNode[]) {
    const c = cluster();
    const pidFile = join(c.workDir, `orphans-${++jobs}.pids`);
    const retryFile = join(c.workDir, `orphans-${jobs}.retries`);
    const job = await api.createJob({
      name: `orphans-${jobs}`,
      command: command(pidFile, retryFile),
      cronExpression: '0 0 1 1 *',
      enabled: false,
      maxRetries: 1,
      timeoutSeconds: 120,
    });
    for (const other of others) other.signal('SIGSTOP');
    try {
      await c.queueMany(job as QueueableJob, RUNS);
      await waitFor(
        async () => {
          const rows = await c.executionsOfJob(job.id as string);
          const mine = rows.filter((row) => row.status === 'RUNNING' && row.worker_id === victim.workerId);
          return mine.length === RUNS && lines(pidFile).length === RUNS ? true : undefined;
        },
        `${RUNS} runs on ${victim.name} with their pids recorded`,
        20_000,
      );
    } finally {
      for (const other of others) other.signal('SIGCONT');
    }
    const pids = lines(pidFile).flatMap(([, shell, child]) => [Number(shell), Number(child)]);
    return { jobId: job.id as string, pids, retryFile };
  }

  /** How long until none of `pids` runs, polled every 10 ms. */
  async function deadAfter(pids: number[], since: number): Promise<number> {
    await waitFor(() => (pids.some(isAlive) ? undefined : true), 'the commands to die', 30_000, 10);
    return Date.now() - since;
  }

  /** The first attempts failed, and each retry succeeded having seen none of their processes. */
  async function outcomes(jobId: string, retryFile: string) {
    const c = cluster();
    const rows = await waitFor(
      async () => {
        const rows = await c.executionsOfJob(jobId);
        const retries = rows.filter((row) => row.trigger === 'RETRY');
        return retries.length === RUNS && retries.every((row) => row.status === 'SUCCEEDED') ? rows : undefined;
      },
      'the retries to succeed',
      (LEASE_SECONDS + 10) * 1000 + 20_000,
      100,
    );
    const first = rows.filter((row: ExecutionRow) => row.attempt === 1);
    const retries = rows.filter((row: ExecutionRow) => row.trigger === 'RETRY');
    const seen = lines(retryFile).map(([id, alive]) => ({ id, alive: Number(alive) }));
    return { first, retries, seen };
  }

  function expectLostAndRetried(
    result: Awaited<ReturnType<typeof outcomes>>,
    message: string,
    worker: OrbitNode,
    survivor: OrbitNode,
  ) {
    for (const row of result.first) {
      expect({ status: row.status, errorMessage: row.error_message, exitCode: row.exit_code }).toEqual({
        status: 'FAILED',
        errorMessage: message,
        exitCode: -1,
      });
      expect(row.worker_id).toBe(worker.workerId);
    }
    expect(result.retries.map((row) => row.retry_of).sort()).toEqual(result.first.map((row) => row.id).sort());
    expect(result.retries.map((row) => row.worker_id)).toEqual(result.retries.map(() => survivor.workerId));
    // every retry saw none of its predecessors' processes running when it started
    expect(result.seen.map((entry) => entry.id).sort()).toEqual(result.retries.map((row) => row.id).sort());
    expect(result.seen.filter((entry) => entry.alive > 0)).toEqual([]);
  }

  it('the spawner SIGKILLed alone: its worker kills the commands, fails them as lost, and runs their retries with a new spawner', () =>
    cluster().scenario(async () => {
      const [a] = await cluster().startNodes({ name: 'worker-spawner', role: 'worker', env });
      const { jobId, pids, retryFile } = await runOn(a!, []);
      const [spawner] = childrenOf(a!.pid);
      expect(pids.filter(isAlive)).toHaveLength(2 * RUNS);

      const killedAt = Date.now();
      process.kill(spawner!, 'SIGKILL');
      const deadMs = await deadAfter(pids, killedAt);
      const result = await outcomes(jobId, retryFile);
      const lostAfter = result.first.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt);
      printFigures(`spawner SIGKILLed alone (${RUNS} × sh with a background sleep)`, {
        'SIGKILL → every process dead': ms(deadMs),
        'SIGKILL → last run failed': ms(Math.max(...lostAfter)),
        'new spawner': `${childrenOf(a!.pid).join(', ')} (was ${spawner})`,
      });

      expect(deadMs).toBeLessThanOrEqual(1000);
      expectLostAndRetried(result, 'Worker lost: the command spawner exited', a!, a!);
      expect(childrenOf(a!.pid)).not.toContain(spawner);
      expect(a!.alive).toBe(true);
      await a!.stop();
    }));

  it.each([
    ['the worker SIGKILLed alone', (node: OrbitNode) => node.signal('SIGKILL')],
    ["the node's whole process group SIGKILLed", (node: OrbitNode) => node.signalGroup('SIGKILL')],
  ])(
    '%s: the commands die at once, the runs fail once their lease expires, and the survivor retries them',
    (what, kill) =>
      cluster().scenario(async () => {
        const [victim, survivor] = await cluster().startNodes(
          { name: `victim-${jobs}`, role: 'worker', env },
          { name: `survivor-${jobs}`, role: 'worker', env },
        );
        const { jobId, pids, retryFile } = await runOn(victim!, [survivor!]);
        expect(pids.filter(isAlive)).toHaveLength(2 * RUNS);

        const killedAt = Date.now();
        kill(victim!);
        const deadMs = await deadAfter(pids, killedAt);
        const result = await outcomes(jobId, retryFile);
        const lostAfter = result.first.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt);
        printFigures(`${what} (${RUNS} × sh with a background sleep, lease ${LEASE_SECONDS}s)`, {
          'SIGKILL → every process dead': ms(deadMs),
          'SIGKILL → first run failed': ms(Math.min(...lostAfter)),
        });

        expect(deadMs).toBeLessThanOrEqual(1000);
        expect(Math.min(...lostAfter)).toBeGreaterThan(deadMs);
        expectLostAndRetried(result, 'Worker lost: lease expired', victim!, survivor!);
        await survivor!.stop();
      }),
  );
});
