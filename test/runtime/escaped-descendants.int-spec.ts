import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { LauncherKind } from '../../src/config/orbit-config.js';
import { CommandRunner } from '../../src/runtime/application/command-runner.js';
import type { Schema } from '../support/api-types.js';
import { createJob, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, isAlive, waitFor } from '../support/wait.js';

// What a command leaves behind outside its process group, through the launcher this project's
// apps use: the native launcher adopts it (a child subreaper) and kills it with the run; the
// Node spawner reaches only the group.

type Execution = Schema<'ExecutionResponse'>;

/**
 * Three descendants that outlive the shell unless someone kills them, each writing its pid to
 * `<execution id>.<name>` in the work dir: `setsid` leaves the run's process group (a session of
 * its own) while its parent, the shell, lives on; `forked` leaves its parent (a double fork) but
 * stays in the group; `daemon` does both, as a daemon does. The command goes on once all three
 * wrote.
 */
const DESCENDANTS = ['setsid', 'forked', 'daemon'] as const;
type Descendant = (typeof DESCENDANTS)[number];
const START_DESCENDANTS = [
  `setsid sh -c 'echo $$ > $ORBIT_EXECUTION_ID.setsid; exec sleep 60' &`,
  `( sh -c 'echo $$ > $ORBIT_EXECUTION_ID.forked; exec sleep 60' & )`,
  `( setsid sh -c 'echo $$ > $ORBIT_EXECUTION_ID.daemon; exec sleep 60' & )`,
  `for d in ${DESCENDANTS.join(' ')}; do until [ -s $ORBIT_EXECUTION_ID.$d ]; do sleep 0.02; done; done`,
].join('\n');

/** Those of them that survive their run, by launcher: the Node spawner kills only the run's process group. */
const SURVIVORS: Record<LauncherKind, Descendant[]> = { native: [], node: ['setsid', 'daemon'] };

/** The live processes (zombies count as gone) whose environment names the run: all that is left of it. */
function processesOf(executionId: string): number[] {
  const wanted = `ORBIT_EXECUTION_ID=${executionId}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(wanted) && isAlive(pid);
      } catch {
        return false; // gone meanwhile
      }
    })
    .sort((a, b) => a - b);
}

/** The children of this process named `name` (its launcher: the native one or the Node spawner). */
function childrenNamed(name: string): number[] {
  return readdirSync(`/proc/${process.pid}/task`)
    .flatMap((task) => readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(' '))
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    });
}

describe('descendants that leave their run', () => {
  let t: TestApp;
  let launcher: LauncherKind;
  const workDir = join(tmpdir(), `orbit-escaped-test-${process.pid}`);
  const runs: string[] = [];
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_WORK_DIR: workDir, ORBIT_KILL_GRACE_SECONDS: '1', ORBIT_POLL_INTERVAL_MS: '200' },
    });
    launcher = t.app.get(CommandRunner).launcherKind;
  });

  // what the Node spawner cannot reach outlives the test unless the test kills it
  afterEach(async () => {
    for (const id of runs.splice(0)) {
      for (const pid of processesOf(id)) process.kill(pid, 'SIGKILL');
      await waitFor(() => (processesOf(id).length === 0 ? true : undefined), `the leftovers of ${id} to die`, 5000);
    }
  });

  afterAll(async () => {
    await t?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function run(command: string, job: JobFields = {}): Promise<Execution> {
    const created = await createJob(t, { command, ...job });
    const { body } = await http().post(`/jobs/${created.id}/executions`).expect(201);
    runs.push(body.id);
    return body as Execution;
  }

  const settled = (id: string): Promise<Execution> => finalExecution((path) => http().get(path), id);

  /** The pids the descendants wrote, once all three did. */
  function descendantsOf(id: string): Promise<Record<Descendant, number>> {
    return waitFor(() => {
      const files = DESCENDANTS.map((name) => join(workDir, `${id}.${name}`));
      const pids = files.map((file) => (existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0));
      return pids.every((pid) => pid > 0)
        ? (Object.fromEntries(DESCENDANTS.map((name, i) => [name, pids[i]!])) as Record<Descendant, number>)
        : undefined;
    }, `the descendants of ${id} to write their pids`);
  }

  /**
   * What is left of the run once its launcher is done with it: polled until it is exactly
   * `expected`, or for 5 s; answers what it saw last.
   */
  async function leftOf(id: string, expected: number[]): Promise<number[]> {
    let left = processesOf(id);
    const wanted = [...expected].sort((a, b) => a - b).join(' ');
    await waitFor(
      () => ((left = processesOf(id)).join(' ') === wanted ? true : undefined),
      `the processes of ${id} to be [${wanted}]`,
      5000,
    ).catch(() => undefined);
    return left;
  }

  /** The descendants that should survive with this project's launcher. */
  const survivorsAmong = (pids: Record<Descendant, number>): number[] => SURVIVORS[launcher].map((name) => pids[name]);

  it("the run's end: the native launcher kills all three, the Node spawner only the one in the group", async () => {
    const queued = await run(`${START_DESCENDANTS}\nexit 0`);
    const done = await settled(queued.id);
    expect(done).toMatchObject({ status: 'SUCCEEDED', exitCode: 0 });
    const pids = await descendantsOf(queued.id);

    expect(await leftOf(queued.id, survivorsAmong(pids))).toEqual(survivorsAmong(pids).sort((a, b) => a - b));
    expect(isAlive(pids.forked)).toBe(false);
  });

  it('its timeout: the same', async () => {
    const queued = await run(`${START_DESCENDANTS}\nsleep 60`, { timeoutSeconds: 2 });
    const pids = await descendantsOf(queued.id);
    const done = await settled(queued.id);
    expect(done).toMatchObject({ status: 'FAILED', exitCode: 124, errorMessage: 'Timed out after 2 seconds' });

    expect(await leftOf(queued.id, survivorsAmong(pids))).toEqual(survivorsAmong(pids).sort((a, b) => a - b));
    expect(isAlive(pids.forked)).toBe(false);
  });

  it('its cancel through the API: the same', async () => {
    const queued = await run(`${START_DESCENDANTS}\nsleep 60`);
    const pids = await descendantsOf(queued.id);
    const cancelled = await http().post(`/executions/${queued.id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');

    expect(await leftOf(queued.id, survivorsAmong(pids))).toEqual(survivorsAmong(pids).sort((a, b) => a - b));
    expect(isAlive(pids.forked)).toBe(false);
  });

  it('the death of the launcher while the run runs: the worker kills everything that names the run, with either, and a new launcher serves the next run', async () => {
    const queued = await run(`${START_DESCENDANTS}\nsleep 60`);
    await descendantsOf(queued.id);
    const [launcherPid, ...others] = childrenNamed(launcher === 'native' ? 'orbit-launcher' : 'orbit-spawner');
    expect(others).toEqual([]);
    process.kill(launcherPid!, 'SIGKILL');

    const done = await settled(queued.id);
    expect(done).toMatchObject({ status: 'FAILED', errorMessage: 'Worker lost: the command launcher exited' });
    expect(await leftOf(queued.id, [])).toEqual([]);

    const next = await run('echo next');
    expect(await settled(next.id)).toMatchObject({ status: 'SUCCEEDED' });
    const [newLauncher, ...more] = childrenNamed(launcher === 'native' ? 'orbit-launcher' : 'orbit-spawner');
    expect({ newLauncher: newLauncher !== launcherPid, more }).toEqual({ newLauncher: true, more: [] });
  });
});
