import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LauncherKind } from '../../src/config/orbit-config.js';
import { ExecutionRow, QueueableJob, useCluster } from './support/cluster.js';
import { OrbitClient } from './support/http.js';
import { LAUNCHER_NAMES, OrbitNode } from './support/orbit-node.js';
import { isAlive, ms, printFigures, processEntry, ProcessEntry, processTree, waitFor } from './support/util.js';

const RUNS = 4;
const LEASE_SECONDS = 4;
const env = {
  ORBIT_LEASE_SECONDS: String(LEASE_SECONDS),
  ORBIT_HEARTBEAT_SECONDS: '1',
  ORBIT_WORKER_CONCURRENCY: String(RUNS),
};
const LAUNCHERS: LauncherKind[] = ['native', 'node'];

/** What a first attempt started: its shell, a background child and, escaping, two that left the shell. */
interface FirstAttempt {
  shell: number;
  child: number;
  /** `setsid sleep 60 &`: a session (and process group) of its own. */
  setsid?: number;
  /** Double-forked: its parent exited at once, so it was reparented (to the native launcher, a subreaper). */
  doubleForked?: number;
}
type Escapee = 'setsid' | 'doubleForked';

/**
 * What of a first attempt that escaped its group outlives its worker's SIGKILL. Nothing with the
 * native launcher, which adopted both. The Node spawner kills only the command's group when its
 * worker dies, so the `setsid`'d process lives on (the worker kills by environment only when the
 * spawner dies alone); the double-forked one stayed in the group and dies with it.
 */
const ESCAPED: Record<LauncherKind, { outlives: Escapee[]; title: string }> = {
  native: { outlives: [], title: 'nothing of it outlives the worker (the launcher adopted it)' },
  node: { outlives: ['setsid'], title: "its setsid'd process outlives the worker (the spawner kills its group only)" },
};

/**
 * A first attempt is a shell with a background child (escaping: also a `setsid`'d one and a
 * double-forked one), all recorded; a retry records how many processes of the first attempts it
 * still saw running when it started, then succeeds.
 */
function command(pidFile: string, retryFile: string, escaping: boolean): string {
  return [
    'if [ "$ORBIT_ATTEMPT" = 1 ]; then',
    '  sleep 60 & child=$!',
    ...(escaping ? ['  setsid sleep 60 & setsid=$!', '  forked=$( (sleep 60 >/dev/null 2>&1 & echo $!) )'] : []),
    `  echo "$ORBIT_EXECUTION_ID $$ $child${escaping ? ' $setsid $forked' : ''}" >> ${pidFile}; wait`,
    'else',
    '  alive=0',
    `  for pid in $(cut -d' ' -f2- ${pidFile}); do`,
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

const pidsOf = (attempt: FirstAttempt) => Object.values(attempt) as number[];

/** Every process of the node named as `pkill node` finds Node: `node` up to Node 22, `MainThread` on Node 24. */
const namedNode = (entry: ProcessEntry) => /node/.test(entry.comm) || entry.comm === 'MainThread';

/** A SIGKILL of (part of) a node; answers the processes it reached. */
type Kill = (node: OrbitNode) => ProcessEntry[];

const KILLS: [string, Kill][] = [
  [
    'the worker SIGKILLed alone',
    (node) => {
      const worker = processEntry(node.pid);
      node.signal('SIGKILL');
      return worker ? [worker] : [];
    },
  ],
  [
    "the node's whole process group SIGKILLed",
    (node) => {
      const group = processTree(node.pid).filter((entry) => entry.pgrp === node.pid);
      node.signalGroup('SIGKILL');
      return group;
    },
  ],
  [
    // never the machine's: jest and the other helpers run on Node too
    '`pkill -9 node` within the node',
    (node) => {
      const named = processTree(node.pid).filter(namedNode);
      for (const entry of named) process.kill(entry.pid, 'SIGKILL');
      return named;
    },
  ],
];

describe('reliability: no command outlives what accounts for it', () => {
  const cluster = useCluster('orphans');
  let api: OrbitClient;
  let jobs = 0;

  beforeAll(async () => {
    const c = cluster();
    api = c.client(await c.startNode({ name: 'api', role: 'api' }));
  });

  /** Queues RUNS first attempts on `victim` alone (`others` frozen meanwhile) and waits until all run. */
  async function runOn(victim: OrbitNode, others: OrbitNode[], escaping = false) {
    const c = cluster();
    const pidFile = join(c.workDir, `orphans-${++jobs}.pids`);
    const retryFile = join(c.workDir, `orphans-${jobs}.retries`);
    const job = await api.createJob({
      name: `orphans-${jobs}`,
      command: command(pidFile, retryFile, escaping),
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
    const attempts = lines(pidFile).map(([, shell, child, setsid, doubleForked]): FirstAttempt => ({
      shell: Number(shell),
      child: Number(child),
      ...(escaping ? { setsid: Number(setsid), doubleForked: Number(doubleForked) } : {}),
    }));
    return { jobId: job.id as string, attempts, pids: attempts.flatMap(pidsOf), retryFile };
  }

  /** How long until none of `pids` runs, polled every 10 ms. */
  async function deadAfter(pids: number[], since: number, what = 'the commands to die'): Promise<number> {
    await waitFor(() => (pids.some(isAlive) ? undefined : true), what, 30_000, 10);
    return Date.now() - since;
  }

  /** The first attempts' and the retries' rows, once every retry succeeded, and what each retry saw. */
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

  /** The first attempts failed as lost, and each retry ran on `survivor` having seen `seenAlive` of their processes. */
  function expectLostAndRetried(
    result: Awaited<ReturnType<typeof outcomes>>,
    message: string,
    worker: OrbitNode,
    survivor: OrbitNode,
    seenAlive = 0,
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
    expect(result.seen.map((entry) => entry.id).sort()).toEqual(result.retries.map((row) => row.id).sort());
    expect(result.seen.filter((entry) => entry.alive !== seenAlive)).toEqual([]);
  }

  describe.each(LAUNCHERS)('with the %s launcher', (launcher) => {
    /** Retries what the victims leave; one per launcher, frozen while a victim claims. */
    let survivor: OrbitNode;
    const launcherName = LAUNCHER_NAMES[launcher];

    beforeAll(async () => {
      survivor = await cluster().startNode({ name: `survivor-${launcher}`, role: 'worker', launcher, env });
      expect(survivor.launcher).toBe(launcher);
    });

    // a victim that outlived a failed scenario would claim the next one's runs
    afterEach(() =>
      Promise.all(
        cluster()
          .nodes.filter((node) => node.role === 'worker' && node !== survivor)
          .map((node) => node.stop()),
      ),
    );

    afterAll(() => survivor?.stop());

    async function startVictim(): Promise<OrbitNode> {
      const victim = await cluster().startNode({ name: `victim-${launcher}-${jobs}`, role: 'worker', launcher, env });
      expect(victim.launcher).toBe(launcher);
      return victim;
    }

    it.each([
      ['a background child', false],
      ["a setsid'd and a double-forked child besides", true],
    ])(
      `the launcher (${launcherName}) SIGKILLed alone, commands with %s: its worker kills them all, fails the runs as lost, and retries them with a new launcher`,
      (what, escaping) =>
        cluster().scenario(async () => {
          const { jobId, pids, retryFile } = await runOn(survivor, [], escaping);
          const old = survivor.launcherPid();
          expect(old).toBeDefined();
          expect(pids.filter(isAlive)).toHaveLength((escaping ? 4 : 2) * RUNS);

          const killedAt = Date.now();
          process.kill(old!, 'SIGKILL');
          const deadMs = await deadAfter(pids, killedAt);
          const result = await outcomes(jobId, retryFile);
          const lostAfter = result.first.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt);
          printFigures(`${launcherName} SIGKILLed alone (${RUNS} × sh with ${what})`, {
            'SIGKILL → every process dead': ms(deadMs),
            'SIGKILL → last run failed': ms(Math.max(...lostAfter)),
            'new launcher': `${survivor.launcherPid()} (was ${old})`,
          });

          expect(deadMs).toBeLessThanOrEqual(1000);
          expectLostAndRetried(result, 'Worker lost: the command launcher exited', survivor, survivor);
          expect(survivor.launcherPid()).toEqual(expect.any(Number));
          expect(survivor.launcherPid()).not.toBe(old);
          expect(survivor.alive).toBe(true);
        }),
    );

    it.each(KILLS)(
      '%s: the launcher outlives the kill, the commands die at once, the runs fail once their lease expires, and the survivor retries them',
      (what, kill) =>
        cluster().scenario(async () => {
          const victim = await startVictim();
          const { jobId, pids, retryFile } = await runOn(victim, [survivor]);
          const launcherPid = victim.launcherPid();
          expect(pids.filter(isAlive)).toHaveLength(2 * RUNS);

          const killedAt = Date.now();
          const reached = kill(victim);
          // the kill reached the worker, not the launcher: that is what kills the commands
          expect(reached.map((entry) => entry.pid)).toContain(victim.pid);
          expect(reached.map((entry) => entry.pid)).not.toContain(launcherPid);
          const deadMs = await deadAfter(pids, killedAt);
          const launcherGoneMs = await deadAfter([launcherPid!], killedAt, 'the launcher to exit');
          const result = await outcomes(jobId, retryFile);
          const lostAfter = result.first.map((row) => (row.finished_at?.getTime() ?? NaN) - killedAt);
          printFigures(`${what}, ${launcherName} (${RUNS} × sh with a background sleep, lease ${LEASE_SECONDS}s)`, {
            SIGKILLed: reached.map((entry) => `${entry.pid} (${entry.comm})`).join(', '),
            'SIGKILL → every process dead': ms(deadMs),
            'SIGKILL → launcher exited': ms(launcherGoneMs),
            'SIGKILL → first run failed': ms(Math.min(...lostAfter)),
          });

          expect(deadMs).toBeLessThanOrEqual(1000);
          expect(Math.min(...lostAfter)).toBeGreaterThan(deadMs);
          expectLostAndRetried(result, 'Worker lost: lease expired', victim, survivor);
        }),
    );

    const { outlives, title } = ESCAPED[launcher];
    it(`a first attempt that escaped its group (setsid, a double fork), its worker SIGKILLed: ${title}`, () =>
      cluster().scenario(async () => {
        const victim = await startVictim();
        const { jobId, attempts, pids, retryFile } = await runOn(victim, [survivor], true);
        const launcherPid = victim.launcherPid();
        const lives = attempts.flatMap((attempt) => outlives.map((escapee) => attempt[escapee]!));
        try {
          expect(pids.filter(isAlive)).toHaveLength(4 * RUNS);
          await waitFor(
            () => (attempts.every(({ setsid }) => processEntry(setsid!)?.session === setsid) ? true : undefined),
            "the setsid'd processes to lead sessions of their own",
            5000,
            10,
          );
          const parents = attempts.map(({ doubleForked }) => processEntry(doubleForked!)?.ppid);
          // their parent exited at once: reparented to the native launcher (a subreaper), or past the Node spawner
          expect(parents).toEqual(attempts.map(() => (launcher === 'native' ? launcherPid : expect.any(Number))));
          expect(parents.filter((ppid) => attempts.some(({ shell }) => shell === ppid))).toEqual([]);

          const killedAt = Date.now();
          victim.signal('SIGKILL');
          const deadMs = await deadAfter(
            pids.filter((pid) => !lives.includes(pid)),
            killedAt,
          );
          const result = await outcomes(jobId, retryFile);
          printFigures(`an escaped first attempt, its worker SIGKILLed, ${launcherName} (${RUNS} runs)`, {
            'SIGKILL → every process that dies dead': ms(deadMs),
            'outlived the worker': `${lives.filter(isAlive).length} of ${pids.length}`,
          });

          expect(deadMs).toBeLessThanOrEqual(1000);
          expectLostAndRetried(result, 'Worker lost: lease expired', victim, survivor, lives.length);
          expect(lives.filter(isAlive)).toEqual(lives);
        } finally {
          for (const pid of lives.filter(isAlive)) process.kill(pid, 'SIGKILL');
        }
      }));
  });
});
