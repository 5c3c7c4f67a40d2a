import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CommandRunner } from '../../src/runtime/application/command-runner.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, isAlive, waitFor } from '../support/wait.js';

/** The process names each launcher gives itself. */
const LAUNCHER_NAMES = { native: 'orbit-launcher', node: 'orbit-spawner' };

/** This process's children named `name`. */
function childrenNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe('a launcher that dies while its commands run', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orbit-launcher-death-'));
    t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: dir, ORBIT_RETRY_BACKOFF_BASE_MS: '0' } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes their processes with it, answers the run as lost, and the retry runs through a new launcher', async () => {
    const http = () => request(t.app.getHttpServer());
    const name = LAUNCHER_NAMES[t.app.get(CommandRunner).launcherKind];
    const pidFile = join(dir, 'pids');
    const job = await createJob(t, {
      maxRetries: 1,
      command: `if [ "$ORBIT_ATTEMPT" = 1 ]; then echo $$ >> ${pidFile}; sleep 60 & echo $! >> ${pidFile}; wait; fi`,
    });
    const { body: queued } = await http().post(`/jobs/${job.id}/executions`).expect(201);
    const pids = await waitFor(() => {
      const found = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim().split('\n').map(Number) : [];
      return found.length === 2 ? found : undefined;
    }, 'the command and its background sleep to run');
    const [launcher, ...others] = childrenNamed(name);
    expect({ launcher: typeof launcher, others }).toEqual({ launcher: 'number', others: [] });

    process.kill(launcher!, 'SIGKILL');

    const first = await finalExecution((path) => http().get(path), queued.id as string);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(first).toMatchObject({ status: 'FAILED', errorMessage: 'Worker lost: the command launcher exited' });
    const { body: runs } = await http().get(`/executions?jobId=${job.id}`).expect(200);
    const retry = (runs.items as { id: string; attempt: number }[]).find((run) => run.attempt === 2);
    expect(retry).toBeDefined();
    expect(await finalExecution((path) => http().get(path), retry!.id)).toMatchObject({ status: 'SUCCEEDED' });
    expect(childrenNamed(name)).toHaveLength(1);
  });
});
