import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { ExecutionStatus, isFinal } from '../../src/executions/domain/execution-status.js';

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs`, naming what it waited for. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  description: string,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** An execution as `get` (GET through the API) answers it, once it is final. */
export async function finalExecution<T extends { status: ExecutionStatus }>(
  get: (path: string) => PromiseLike<{ body: T }>,
  id: string,
): Promise<T> {
  return waitFor(async () => {
    const { body } = await get(`/executions/${id}`);
    return isFinal(body.status) ? body : undefined;
  }, `execution ${id} to finish`);
}

/**
 * A TCP port nobody listens on right now, below Linux's ephemeral range (32768 and up): a port
 * the kernel handed out for `listen(0)` can be taken the next moment by an outgoing connection
 * (the nodes' pg clients), and a node that binds it later fails with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The state letter of /proc/<pid>/stat (R, S, Z, ...), or undefined when there is no such process. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * Whether a process still runs. A zombie (exited, not yet reaped, e.g. an orphan whose new
 * parent is a PID 1 that does not reap) runs nothing and counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = processState(pid);
  return state !== undefined && state !== 'Z';
}
