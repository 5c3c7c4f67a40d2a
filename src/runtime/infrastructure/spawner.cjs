'use strict';
/**
 * The process that starts commands for one worker. It is small, so fork() is cheap, and it
 * outlives nothing: when its worker dies (even by SIGKILL) the IPC channel closes and every
 * command it started is killed with its whole process group before a retry can start
 * elsewhere. It runs in a process group of its own, so a SIGKILL of its worker's whole group
 * (a supervisor's or a shell's job control) leaves it alive for that. Ctrl-C and SIGTERM are its
 * worker's business, not its own; when it dies by itself, its worker kills the groups it
 * reported as started.
 *
 * Both ways, an IPC message is an array of these (what one event-loop turn produced: one
 * write instead of one per command):
 * In:  {type:'run', id, command, cwd, env, timeoutMs, killGraceMs, outputLimitBytes, uid?, gid?}
 *      {type:'kill', id}
 * Out: {type:'started', id, pgid}                        (the command's process group)
 *      {type:'output', id, stdout, stderr, truncated}   (bounded tails, at most every FLUSH_MS)
 *      {type:'exit', id, code, signal, timedOut, killed, error, stdout, stderr, truncated}
 */
const { spawn } = require('node:child_process');

const FLUSH_MS = 500;

// a name of its own, not `node`: a `pkill node` that kills its worker leaves it alive to kill the commands
process.title = 'orbit-spawner';
const runs = new Map();

process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
process.on('disconnect', () => {
  for (const run of runs.values()) killGroup(run, 'SIGKILL');
  process.exit(0);
});
process.on('message', (messages) => {
  for (const message of messages) {
    if (message.type === 'run') start(message);
    else if (message.type === 'kill') stop(runs.get(message.id), false);
  }
});

/** The last `limit` bytes of a stream. */
class Tail {
  constructor(limit) {
    this.limit = limit;
    this.chunks = [];
    this.size = 0;
    this.truncated = false;
  }
  push(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const excess = this.size - this.limit;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
      this.truncated = true;
    }
  }
  /** Decoded; `whole` leaves out a character still being written (the next report has it whole). */
  text(whole) {
    const bytes = Buffer.concat(this.chunks);
    return bytes.toString('utf8', 0, whole ? bytes.length - incompleteEnd(bytes) : bytes.length);
  }
}

/** How many bytes at the end begin a character that is not complete yet (0 to 3). */
function incompleteEnd(bytes) {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if (byte >= 0x80 && byte <= 0xbf) continue; // a continuation byte: its lead is further back
    const need =
      byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xc2 && byte <= 0xdf ? 2 : 0;
    return need > back ? back : 0;
  }
  return 0;
}

function start(request) {
  const run = {
    id: request.id,
    stdout: new Tail(request.outputLimitBytes),
    stderr: new Tail(request.outputLimitBytes),
    dirty: false,
    timedOut: false,
    killed: false,
    child: undefined,
    killGraceMs: request.killGraceMs,
    // one of each per run, whatever it prints and however often it is stopped
    deadline: undefined,
    flushTimer: undefined,
    killTimer: undefined,
  };
  runs.set(run.id, run);
  let child;
  try {
    child = spawn('/bin/sh', ['-c', request.command], {
      cwd: request.cwd,
      env: request.env,
      detached: true, // its own process group: a timeout or a cancel kills the whole tree
      uid: request.uid,
      gid: request.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    finish(run, { code: null, signal: null, error: String(error && error.message ? error.message : error) });
    return;
  }
  run.child = child;
  if (child.pid !== undefined) send({ type: 'started', id: run.id, pgid: child.pid });
  child.stdout.on('data', (chunk) => collect(run, run.stdout, chunk));
  child.stderr.on('data', (chunk) => collect(run, run.stderr, chunk));
  child.once('error', (error) => finish(run, { code: null, signal: null, error: error.message }));
  child.once('exit', (code, signal) => {
    // background processes the command left behind end with it, after the same grace
    if (killGroup(run, 'SIGTERM')) setTimeout(() => killGroup(run, 'SIGKILL'), run.killGraceMs).unref();
    // wait for the pipes to drain, but not for a descendant that escaped the group
    const settle = setTimeout(() => finish(run, { code, signal }), 1000);
    child.once('close', () => {
      clearTimeout(settle);
      finish(run, { code, signal });
    });
  });
  run.deadline = setTimeout(() => {
    run.timedOut = true;
    stop(run, true);
  }, request.timeoutMs);
}

function collect(run, tail, chunk) {
  tail.push(chunk);
  if (run.dirty) return;
  run.dirty = true;
  if (run.flushTimer) run.flushTimer.refresh();
  else run.flushTimer = setTimeout(() => flushOutput(run), FLUSH_MS);
}

function flushOutput(run) {
  run.dirty = false;
  if (runs.has(run.id)) send({ type: 'output', id: run.id, ...snapshot(run, true) });
}

/** SIGTERM to the group, SIGKILL after the grace (counted from the first stop). */
function stop(run, graceful) {
  if (!run || !run.child) return;
  if (!graceful) run.killed = true;
  killGroup(run, 'SIGTERM');
  run.killTimer ??= setTimeout(() => killGroup(run, 'SIGKILL'), run.killGraceMs);
}

/** Whether the signal reached the group: false when no process of it is left. */
function killGroup(run, signal) {
  if (!run.child || run.child.pid === undefined) return false;
  try {
    process.kill(-run.child.pid, signal);
    return true;
  } catch {
    return false; // the group is gone already
  }
}

function finish(run, result) {
  if (!runs.has(run.id)) return;
  runs.delete(run.id);
  clearTimeout(run.deadline);
  clearTimeout(run.flushTimer);
  clearTimeout(run.killTimer);
  send({
    type: 'exit',
    id: run.id,
    code: result.code ?? null,
    signal: result.signal ?? null,
    error: result.error ?? null,
    timedOut: run.timedOut,
    killed: run.killed,
    ...snapshot(run, false),
  });
}

function snapshot(run, whole) {
  return {
    stdout: run.stdout.text(whole),
    stderr: run.stderr.text(whole),
    truncated: run.stdout.truncated || run.stderr.truncated,
  };
}

let outbox = [];

function send(message) {
  if (outbox.length === 0) setImmediate(flush);
  outbox.push(message);
}

function flush() {
  const messages = outbox;
  outbox = [];
  // the worker may be going away: a failed send is its business (the disconnect handler kills the commands)
  if (process.connected) process.send(messages, () => undefined);
}
