import { ChildProcess, execFileSync, fork, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigError, DEFAULT_COMMAND_USER, OrbitConfig } from '../../config/orbit-config.js';
import type { ExecutionOutput } from '../../executions/application/execution-output.repository.js';
import { CommandOutcome, CommandRequest, CommandRunner } from '../application/command-runner.js';
import { groupsByEnvironment, groupsGone, signalGroup } from './process-groups.js';

type SpawnerMessage =
  | { type: 'started'; id: string; pgid: number }
  | ({ type: 'output'; id: string } & ExecutionOutput)
  | ({
      type: 'exit';
      id: string;
      code: number | null;
      signal: string | null;
      error: string | null;
      timedOut: boolean;
      killed: boolean;
    } & ExecutionOutput);

interface Pending {
  onOutput: (output: ExecutionOutput) => void;
  resolve: (outcome: CommandOutcome) => void;
  /** The spawner its run message went to, once sent. */
  spawner?: ChildProcess;
  /** The command's process group, once the spawner reported it. */
  pgid?: number;
  output: ExecutionOutput;
}

const NO_OUTPUT: ExecutionOutput = { stdout: '', stderr: '', truncated: false };
const SPAWNER_EXITED = 'the command spawner exited';

const SPAWNER = fileURLToPath(new URL('./spawner.cjs', import.meta.url));
/**
 * The spawner only relays: V8's background threads (concurrent compilation and GC) buy it
 * nothing, and without them each spawn costs it about 1 ms less CPU (6.3 → 5.2 ms per
 * `/bin/sh -c true` at concurrency 8 on two cores, measured with /proc), which is a tenth
 * more commands per second.
 */
const SPAWNER_NODE_FLAGS = ['--single-threaded'];

/**
 * Starts commands through a small dedicated child process (spawner.cjs): forking from it is
 * cheaper than from this large process, and when this process dies the spawner kills the
 * commands it started. When the spawner dies instead, this process kills their process groups
 * and answers their runs as lost only once the groups are gone, so no retry overlaps them; a
 * new spawner serves the commands that come after.
 */
@Injectable()
export class SpawnerCommandRunner extends CommandRunner {
  private readonly logger = new Logger(SpawnerCommandRunner.name);
  private spawner: ChildProcess | undefined;
  private readonly pending = new Map<string, Pending>();
  /** Messages for the spawner, sent together at the end of this event-loop turn. */
  private outbox: { type: string; id: string }[] = [];
  private identity: RunAs | undefined;

  constructor(private readonly config: OrbitConfig) {
    super();
  }

  prepare(workDir: string): Promise<void> {
    mkdirSync(workDir, { recursive: true });
    const user = this.config.commandUser;
    if (user === undefined) return Promise.resolve();
    const identity = lookUpUser(user);
    if (identity.uid === 0) {
      this.logger.warn(
        `Commands run as ${identity.name} (ORBIT_COMMAND_USER): they can read Orbit's secrets, its data and ` +
          'the environment of every process. Set ORBIT_COMMAND_USER to an unprivileged user.',
      );
      return Promise.resolve();
    }
    if (!usable(workDir, identity)) {
      // the work dir is Orbit's to give; the folders above it are not
      chownSync(workDir, identity.uid, identity.gid);
      this.logger.log(`Gave ${workDir} to ${identity.name}, the user commands run as`);
      if (!usable(workDir, identity)) {
        throw new ConfigError(
          `ORBIT_WORK_DIR ${workDir} is out of reach of ${identity.name}, the user commands run as: ` +
            'give that user search permission on every folder above it (chmod o+x), or choose another ORBIT_WORK_DIR',
        );
      }
    }
    this.identity = identity;
    this.logger.log(`Commands run as ${identity.name} (uid ${identity.uid}) in ${workDir}`);
    return Promise.resolve();
  }

  run(request: CommandRequest, onOutput: (output: ExecutionOutput) => void): Promise<CommandOutcome> {
    const identity = this.identity;
    const message = identity
      ? {
          ...request,
          uid: identity.uid,
          gid: identity.gid,
          env: { ...request.env, HOME: identity.home, USER: identity.name, LOGNAME: identity.name },
        }
      : request;
    return new Promise((resolve) => {
      this.pending.set(request.id, { onOutput, resolve, output: NO_OUTPUT });
      this.send({ type: 'run', ...message });
    });
  }

  kill(id: string): void {
    if (this.pending.has(id)) this.send({ type: 'kill', id });
  }

  private send(message: { type: string; id: string }): void {
    if (this.outbox.length === 0) {
      setImmediate(() => {
        const messages = this.outbox;
        this.outbox = [];
        if (messages.length === 0) return;
        const spawner = this.ensureSpawner();
        for (const { id } of messages) {
          const pending = this.pending.get(id);
          if (pending) pending.spawner ??= spawner;
        }
        spawner.send(messages);
      });
    }
    this.outbox.push(message);
  }

  async close(): Promise<void> {
    const spawner = this.spawner;
    if (!spawner) return;
    this.spawner = undefined;
    const exited = new Promise((resolve) => spawner.once('exit', resolve));
    spawner.disconnect();
    await exited;
  }

  private ensureSpawner(): ChildProcess {
    if (this.spawner?.connected) return this.spawner;
    // a group of its own: a SIGKILL of this process's whole group leaves it alive to kill the commands;
    // an empty environment: the commands get theirs with each run, and must find none of Orbit's in /proc
    const spawner = fork(SPAWNER, [], {
      execArgv: SPAWNER_NODE_FLAGS,
      env: {},
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    spawner.on('message', (messages: SpawnerMessage[]) => {
      for (const message of messages) this.receive(message);
    });
    spawner.once('exit', (code, signal) => {
      if (this.spawner === spawner) {
        this.spawner = undefined;
        this.logger.error(`The command spawner exited (code ${code}, signal ${signal}): killing its commands`);
      }
      void this.killOrphans(spawner);
    });
    this.spawner = spawner;
    return spawner;
  }

  /**
   * The commands of a spawner that died run on with nobody to account for them: kill their
   * groups (found by environment for a command whose group was never reported), and answer
   * their runs as lost once nothing of them runs any more.
   */
  private async killOrphans(spawner: ChildProcess): Promise<void> {
    const orphans = [...this.pending].filter(([, pending]) => pending.spawner === spawner);
    for (const [id] of orphans) this.pending.delete(id);
    const unreported = orphans.filter(([, pending]) => pending.pgid === undefined).map(([id]) => id);
    const groups = [
      ...orphans.flatMap(([, pending]) => (pending.pgid === undefined ? [] : [pending.pgid])),
      ...groupsByEnvironment('ORBIT_EXECUTION_ID', unreported),
    ];
    for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
    await groupsGone(groups, (running) =>
      this.logger.warn(`Process groups ${running.join(', ')} still run after SIGKILL; their runs wait for them`),
    );
    for (const [, pending] of orphans) {
      pending.resolve({
        code: null,
        signal: null,
        error: null,
        lost: SPAWNER_EXITED,
        timedOut: false,
        killed: true,
        output: pending.output,
      });
    }
  }

  private receive(message: SpawnerMessage): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'started') {
      pending.pgid = message.pgid;
    } else if (message.type === 'output') {
      pending.output = { stdout: message.stdout, stderr: message.stderr, truncated: message.truncated };
      pending.onOutput(pending.output);
    } else {
      this.pending.delete(message.id);
      const { code, signal, error, timedOut, killed, stdout, stderr, truncated } = message;
      pending.resolve({ code, signal, error, lost: null, timedOut, killed, output: { stdout, stderr, truncated } });
    }
  }
}

interface RunAs {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** The passwd entry of a user, through the system's own name service. */
function lookUpUser(name: string): RunAs {
  let entry: string;
  try {
    entry = execFileSync('getent', ['passwd', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch (error) {
    if ((error as { status?: number }).status !== 2) {
      throw new ConfigError(`ORBIT_COMMAND_USER: could not look up user '${name}' (${(error as Error).message})`);
    }
    const byDefault = name === DEFAULT_COMMAND_USER ? ` (as root, commands run as ${name} unless told otherwise)` : '';
    throw new ConfigError(
      `ORBIT_COMMAND_USER: there is no user named '${name}' on this machine${byDefault}. Create it ` +
        `(useradd --system --no-create-home ${name}), set ORBIT_COMMAND_USER to an unprivileged user that exists, ` +
        "or set ORBIT_COMMAND_USER=root to run commands as root (they could then read Orbit's secrets)",
    );
  }
  const [, , uid, gid, , home] = entry.split(':');
  return { name, uid: Number(uid), gid: Number(gid), home: home || '/' };
}

/** Whether the user can enter and write `dir`, asked of the kernel as that user. */
function usable(dir: string, identity: RunAs): boolean {
  const probe = spawnSync('/bin/sh', ['-c', 'cd -- "$1" && test -w .', 'sh', dir], {
    uid: identity.uid,
    gid: identity.gid,
    env: {},
    stdio: 'ignore',
  });
  return probe.status === 0;
}
