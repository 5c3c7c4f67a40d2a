import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigError, DEFAULT_COMMAND_USER, LauncherKind, OrbitConfig } from '../../config/orbit-config.js';
import type { ExecutionOutput } from '../../executions/application/execution-output.repository.js';
import { CommandOutcome, CommandRequest, CommandRunner } from '../application/command-runner.js';
import { chooseLauncher, LauncherChannel, startLauncher } from './launchers.js';
import { groupsByEnvironment, groupsGone, signalGroup } from './process-groups.js';

type LauncherMessage =
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
    } & ExecutionOutput)
  | { type: 'error'; id: string | null; error: string };

interface Pending {
  onOutput: (output: ExecutionOutput) => void;
  resolve: (outcome: CommandOutcome) => void;
  /** The launcher its run message went to, once sent. */
  launcher?: LauncherChannel;
  /** The command's process group, once the launcher reported it. */
  pgid?: number;
  output: ExecutionOutput;
}

const NO_OUTPUT: ExecutionOutput = { stdout: '', stderr: '', truncated: false };
const LAUNCHER_EXITED = 'the command launcher exited';

/**
 * Starts commands through a small dedicated process (the native launcher, or the Node spawner
 * where none was built; see `launchers.ts`): starting them from it is cheaper than from this
 * large process, and when this process dies the launcher kills the commands it started. When the
 * launcher dies instead, this process kills their process groups (and whatever of them left
 * its group) and answers their runs as lost only once they are gone, so no retry overlaps them;
 * a new launcher serves the commands that come after.
 */
@Injectable()
export class LauncherCommandRunner extends CommandRunner {
  private readonly logger = new Logger(LauncherCommandRunner.name);
  private launcher: LauncherChannel | undefined;
  private kind: LauncherKind = 'node';
  private readonly pending = new Map<string, Pending>();
  /** Messages for the launcher, sent together at the end of this event-loop turn. */
  private outbox: { type: string; id: string }[] = [];
  private identity: RunAs | undefined;

  constructor(private readonly config: OrbitConfig) {
    super();
  }

  get launcherKind(): LauncherKind {
    return this.kind;
  }

  prepare(workDir: string): Promise<void> {
    this.kind = chooseLauncher(this.config.launcher);
    this.logger.log(`Commands start through the ${this.kind === 'native' ? 'native launcher' : 'Node spawner'}`);
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
        const launcher = this.ensureLauncher();
        for (const { id } of messages) {
          const pending = this.pending.get(id);
          if (pending) pending.launcher ??= launcher;
        }
        launcher.send(messages);
      });
    }
    this.outbox.push(message);
  }

  async close(): Promise<void> {
    const launcher = this.launcher;
    if (!launcher) return;
    this.launcher = undefined;
    launcher.end();
    await launcher.exited;
  }

  private ensureLauncher(): LauncherChannel {
    if (this.launcher?.open) return this.launcher;
    const launcher = startLauncher(this.kind, (messages) => {
      for (const message of messages as LauncherMessage[]) this.receive(message);
    });
    void launcher.exited.then((how) => {
      if (this.launcher === launcher) {
        this.launcher = undefined;
        this.logger.error(`The command launcher exited (${how}): killing its commands`);
      }
      return this.killOrphans(launcher);
    });
    this.launcher = launcher;
    return launcher;
  }

  /**
   * The commands of a launcher that died run on with nobody to account for them: kill their
   * groups, and the groups of every process whose environment names one of their runs (a
   * command whose group was never reported, a descendant that left its group), and answer
   * their runs as lost once nothing of them runs any more.
   */
  private async killOrphans(launcher: LauncherChannel): Promise<void> {
    const orphans = [...this.pending].filter(([, pending]) => pending.launcher === launcher);
    for (const [id] of orphans) this.pending.delete(id);
    if (orphans.length === 0) return;
    const groups = [
      ...new Set([
        ...orphans.flatMap(([, pending]) => (pending.pgid === undefined ? [] : [pending.pgid])),
        ...groupsByEnvironment(
          'ORBIT_EXECUTION_ID',
          orphans.map(([id]) => id),
        ),
      ]),
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
        lost: LAUNCHER_EXITED,
        timedOut: false,
        killed: true,
        output: pending.output,
      });
    }
  }

  private receive(message: LauncherMessage): void {
    const pending = message.id === null ? undefined : this.pending.get(message.id);
    // an error about a run that started (or about no run) leaves the run to its own answers
    if (!pending || (message.type === 'error' && pending.pgid !== undefined)) {
      if (message.type === 'error') this.logger.error(`The command launcher refused a request: ${message.error}`);
      return;
    }
    if (message.type === 'error') {
      // a run it refused never started: answered as a start that failed
      this.pending.delete(message.id as string);
      const error = `the command launcher refused the run: ${message.error}`;
      pending.resolve({
        code: null,
        signal: null,
        error,
        lost: null,
        timedOut: false,
        killed: false,
        output: NO_OUTPUT,
      });
    } else if (message.type === 'started') {
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
