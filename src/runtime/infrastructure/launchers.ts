import { ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, LauncherChoice, LauncherKind } from '../../config/orbit-config.js';
import { ORBIT_ROOT } from '../../shared/orbit-version.js';

/**
 * One running launcher process, whichever kind: both speak the protocol in
 * `launcher/PROTOCOL.md`, a message being an array of requests or answers.
 */
export interface LauncherChannel {
  readonly process: ChildProcess;
  /** Whether requests still reach it. */
  readonly open: boolean;
  /** Settles once the launcher is gone: it exited, was killed, or could not start. */
  readonly exited: Promise<string>;
  send(messages: object[]): void;
  /** Ends the channel, which tells the launcher to kill what still runs and exit. */
  end(): void;
}

/** Where the install script builds the native launcher: `dist/native` of the package. */
export const NATIVE_LAUNCHER = join(ORBIT_ROOT, 'dist/native/orbit-launcher');

const SPAWNER = fileURLToPath(new URL('./spawner.cjs', import.meta.url));
/**
 * The spawner only relays: V8's background threads (concurrent compilation and GC) buy it
 * nothing, and without them each spawn costs it about 1 ms less CPU (6.3 → 5.2 ms per
 * `/bin/sh -c true` at concurrency 8 on two cores, measured with /proc), which is a tenth
 * more commands per second.
 */
const SPAWNER_NODE_FLAGS = ['--single-threaded'];

/** The launcher ORBIT_LAUNCHER asks for; `native` without a built launcher is a start-up error. */
export function chooseLauncher(choice: LauncherChoice, binary = NATIVE_LAUNCHER): LauncherKind {
  const built = existsSync(binary);
  if (choice === 'native' && !built) {
    throw new ConfigError(
      `ORBIT_LAUNCHER=native, but there is no native launcher at ${binary}: \`npm install\` builds it with ` +
        "the system's C compiler (cc) and says in one line why it could not. Install a compiler (apt-get install " +
        'gcc) and run `node scripts/build-launcher.mjs` (or `npm install`) again, or set ORBIT_LAUNCHER=auto or node',
    );
  }
  return choice === 'node' || !built ? 'node' : 'native';
}

/**
 * Starts a launcher in a process group of its own (a SIGKILL of its worker's whole group leaves
 * it alive to kill the commands) with an empty environment (the commands get theirs with each
 * run, and must find none of Orbit's in /proc).
 */
export function startLauncher(
  kind: LauncherKind,
  onMessages: (messages: unknown[]) => void,
  binary = NATIVE_LAUNCHER,
): LauncherChannel {
  return kind === 'native' ? startNative(binary, onMessages) : startSpawner(onMessages);
}

/** How the process ended, once: a process that could not start emits 'error' and no 'exit'. */
function endOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(`code ${code}, signal ${signal}`));
    child.once('error', (error) => {
      if (child.pid === undefined) resolve(`could not start: ${error.message}`);
    });
  });
}

function startSpawner(onMessages: (messages: unknown[]) => void): LauncherChannel {
  const child = fork(SPAWNER, [], {
    execArgv: SPAWNER_NODE_FLAGS,
    env: {},
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (messages: unknown[]) => onMessages(messages));
  return {
    process: child,
    exited: endOf(child),
    get open() {
      return child.connected;
    },
    send: (messages) => child.send(messages, () => undefined),
    end: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/** The native launcher reads one JSON array per line on stdin and writes them on stdout. */
function startNative(binary: string, onMessages: (messages: unknown[]) => void): LauncherChannel {
  const child = spawn(binary, [], { env: {}, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
  let open = true;
  const exited = endOf(child).finally(() => (open = false));
  // a launcher that died mid-write: its exit says so, and the worker's handler does the rest
  child.stdin.on('error', () => (open = false));
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let messages: unknown[];
      try {
        messages = JSON.parse(line) as unknown[];
      } catch {
        // a launcher that garbles its answers cannot be trusted with its runs: it is treated as dead
        child.kill('SIGKILL');
        return;
      }
      onMessages(messages);
    }
  });
  return {
    process: child,
    exited,
    get open() {
      return open;
    },
    send: (messages) => {
      if (open) child.stdin.write(`${JSON.stringify(messages)}\n`);
    },
    end: () => {
      open = false;
      child.stdin.end();
    },
  };
}
