import { Writable } from 'node:stream';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createRootLogger } from '../../src/observability/infrastructure/logging.js';
import { CommandRunner } from '../../src/runtime/application/command-runner.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';
import { finalExecution } from '../support/wait.js';

// These tests switch users, which only root can; the suite runs as root (as CI does). Elsewhere
// they are expected to fail, and a run that passes them is reported.
const asRoot = process.getuid?.() === 0;
const rootIt = asRoot ? it : it.failing;

/** Runs `command` once on the app and answers its stdout (the run must succeed). */
async function runOnce(t: TestApp, command: string): Promise<string> {
  const http = () => request(t.app.getHttpServer());
  const job = await createJob(t, { command });
  const { body: queued } = await http().post(`/jobs/${job.id}/executions`).expect(201);
  const done = await finalExecution((path) => http().get(path), queued.id as string);
  const { body } = await http().get(`/executions/${queued.id}/output`).expect(200);
  expect({ status: done.status, stderr: body.stderr }).toEqual({ status: 'SUCCEEDED', stderr: '' });
  return body.stdout as string;
}

/** The variables of the launcher (the command's parent), as a command running as root reads them. */
const PARENT_ENV = `tr '\\0' '\\n' < /proc/$PPID/environ | cut -d= -f1 | sort`;
const NODE_CHANNEL = 'NODE_CHANNEL_FD\nNODE_CHANNEL_SERIALIZATION_MODE\n';

describe('the user commands run as (ORBIT_COMMAND_USER)', () => {
  let root: string;
  beforeEach(() => {
    root = join(tmpdir(), `orbit-command-user-${process.pid}-${Date.now()}`);
    mkdirSync(root, { mode: 0o755 });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  // first in the file: nestjs-pino keeps the first app's logger for the whole file
  rootIt('root only when asked for, with a warning; the launcher has no variable of its own to show', async () => {
    const lines: string[] = [];
    const logger = createRootLogger(
      { logLevel: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString().split('\n').filter(Boolean));
          done();
        },
      }),
    );
    const t = await createTestApp({
      role: 'all',
      logger,
      env: { ORBIT_COMMAND_USER: 'root', ORBIT_WORK_DIR: join(root, 'work'), LOG_LEVEL: 'info' },
    });
    try {
      // the Node spawner's only variables are those of Node's channel to its worker
      const channel = t.app.get(CommandRunner).launcherKind === 'node' ? NODE_CHANNEL : '';
      expect(await runOnce(t, `id -un; ${PARENT_ENV}`)).toBe(`root\n${channel}`);
      const warning = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((l) => l.level === 40);
      expect(warning?.msg).toBe(
        "Commands run as root (ORBIT_COMMAND_USER): they can read Orbit's secrets, its data and the environment " +
          'of every process. Set ORBIT_COMMAND_USER to an unprivileged user.',
      );
    } finally {
      await t.close();
    }
  });

  rootIt(
    'as root, commands run as nobody by default, in a work dir Orbit made theirs, and cannot read their parent',
    async () => {
      const workDir = mkdtempSync(join(root, 'work-')); // mode 700, root's: the user could not even enter it
      const t = await createTestApp({ role: 'all', env: { ORBIT_WORK_DIR: workDir } });
      try {
        const stdout = await runOnce(
          t,
          'id -un; id -G; echo "$USER $HOME"; touch ./written && echo wrote; cat /proc/$PPID/environ >/dev/null 2>&1 || echo parent-unreadable',
        );
        // id -G: nobody's group only, none of root's
        expect(stdout).toBe('nobody\n65534\nnobody /nonexistent\nwrote\nparent-unreadable\n');
        expect(statSync(join(workDir, 'written')).uid).toBe(65534);
      } finally {
        await t.close();
      }
    },
  );

  rootIt('ORBIT_RUN_AS_USER, the old name, still chooses the user', async () => {
    const t = await createTestApp({
      role: 'all',
      env: { ORBIT_RUN_AS_USER: 'daemon', ORBIT_WORK_DIR: join(root, 'w') },
    });
    try {
      expect(await runOnce(t, 'id -un')).toBe('daemon\n');
    } finally {
      await t.close();
    }
  });

  /** The start of a worker node with these settings fails with this message. */
  async function refusedStart(env: Record<string, string>, message: string): Promise<void> {
    const db = await createTestDatabase();
    const t = await createTestApp({ role: 'all', db, init: false, env });
    try {
      await expect(t.app.init()).rejects.toThrow(message);
    } finally {
      await t.app.close();
      await db.drop();
    }
  }

  rootIt('a user that does not exist stops the start, saying what to do', async () => {
    await refusedStart(
      { ORBIT_COMMAND_USER: 'no-such-orbit-user', ORBIT_WORK_DIR: join(root, 'work') },
      "ORBIT_COMMAND_USER: there is no user named 'no-such-orbit-user' on this machine. Create it " +
        '(useradd --system --no-create-home no-such-orbit-user), set ORBIT_COMMAND_USER to an unprivileged ' +
        "user that exists, or set ORBIT_COMMAND_USER=root to run commands as root (they could then read Orbit's secrets)",
    );
  });

  rootIt('a work dir the user cannot reach stops the start, naming it', async () => {
    const closed = join(root, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    const workDir = join(closed, 'work');
    await refusedStart(
      { ORBIT_WORK_DIR: workDir },
      `ORBIT_WORK_DIR ${workDir} is out of reach of nobody, the user commands run as: give that user search ` +
        'permission on every folder above it (chmod o+x), or choose another ORBIT_WORK_DIR',
    );
  });
});
