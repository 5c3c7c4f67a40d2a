import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * What a worker needs to end the commands of a spawner that died: their process groups,
 * signalled and watched from outside. On Linux a group counts as gone once only zombies are
 * left of it (an orphan's new parent may be a PID 1 that never reaps them); elsewhere once
 * the kernel knows no process of it.
 */
const PROC = '/proc';

/** Sends `signal` to every process of the group; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The groups among `pgids` that still have a process that is not a zombie. */
export function runningGroups(pgids: number[]): Set<number> {
  const signalled = pgids.filter((pgid) => signalGroup(pgid, 0));
  if (signalled.length === 0 || !existsSync(PROC)) return new Set(signalled);
  const wanted = new Set(signalled);
  const running = new Set<number>();
  for (const pid of processIds()) {
    const stat = statOf(pid);
    if (stat && stat.state !== 'Z' && stat.state !== 'X' && wanted.has(stat.pgrp)) running.add(stat.pgrp);
  }
  return running;
}

/**
 * The process groups of the processes whose environment has `name` set to one of `values`:
 * for a command whose spawner died before it could report its group. Empty without /proc.
 */
export function groupsByEnvironment(name: string, values: string[]): number[] {
  const groups = new Set<number>();
  if (values.length === 0 || !existsSync(PROC)) return [];
  const wanted = new Set(values.map((value) => `${name}=${value}`));
  for (const pid of processIds()) {
    if (
      !read(`${PROC}/${pid}/environ`)
        ?.split('\0')
        .some((variable) => wanted.has(variable))
    )
      continue;
    const stat = statOf(pid);
    if (stat) groups.add(stat.pgrp);
  }
  return [...groups];
}

/** Resolves once none of the groups runs; `onSlow` hears about those still running every `warnEveryMs`. */
export async function groupsGone(
  pgids: number[],
  onSlow: (running: number[]) => void,
  warnEveryMs = 5000,
): Promise<void> {
  let left = pgids;
  let warnAt = Date.now() + warnEveryMs;
  while (left.length > 0) {
    left = [...runningGroups(left)];
    if (left.length === 0) return;
    if (Date.now() >= warnAt) {
      onSlow(left);
      warnAt = Date.now() + warnEveryMs;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function processIds(): string[] {
  return readdirSync(PROC).filter((entry) => /^\d+$/.test(entry));
}

function statOf(pid: string): { state: string; pgrp: number } | undefined {
  const stat = read(`${PROC}/${pid}/stat`);
  if (stat === undefined) return undefined;
  // after the command name (which may hold spaces and parentheses): state, ppid, pgrp, ...
  const [state = '', , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, pgrp: Number(pgrp) };
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // gone meanwhile, or another user's
  }
}
