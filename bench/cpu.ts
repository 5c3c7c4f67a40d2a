/**
 * CPU time per execution, split by who spent it, read from /proc (Linux). A
 * process's `cutime`/`cstime` hold what its exited children spent, so a tree's time is its live
 * processes' own time plus what they reaped: a PostgreSQL backend that exits, or a command that a
 * spawner reaps, is counted once, in the span it ran. Peers are measured the same way.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import pg from 'pg';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** The executable's name (`node`, `sh`, `postgres`), from its path: Node 24 names its main thread `MainThread`, which is what `comm` says. */
  exe: string;
  /** The process's name (`comm`): `orbit-spawner` for the Node spawner, whose executable is `node`. */
  comm: string;
  /** utime + stime, in ticks. */
  own: number;
  /** cutime + cstime: what its waited-for children spent, in ticks. */
  reaped: number;
}

function executable(pid: number): string | undefined {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return undefined; // a kernel thread, or it exited meanwhile
  }
}

function stat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces and parentheses: the fields follow the last ')'
    const end = text.lastIndexOf(')');
    const fields = text.slice(end + 2).split(' ');
    const comm = text.slice(text.indexOf('(') + 1, end);
    return {
      pid,
      ppid: Number(fields[1]),
      exe: executable(pid) ?? comm,
      comm,
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return null; // it exited meanwhile
  }
}

function processes(): ProcStat[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => stat(Number(entry)))
    .filter((s): s is ProcStat => s !== null);
}

/** CPU milliseconds spent so far, by part. */
export type CpuSample = Record<string, number>;

const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;

/** Whether a process below a worker is what starts its commands: the native launcher, or the Node spawner. */
function isLauncher(p: ProcStat): boolean {
  return p.exe === 'orbit-launcher' || (p.exe === 'node' && p.comm === 'orbit-spawner');
}

/**
 * A worker process as the bench starts it (or a peer's worker): its own time (`worker`), its
 * launcher's (`launcher`, once it has one: Orbit starts it with the first command), and the
 * commands: every other process below it, and all the tree reaped (a launcher that exits would
 * be counted there too; the worker's log tells when one restarts).
 */
export function workerTree(pid: number): () => CpuSample {
  return () => {
    const all = processes();
    const below = new Map<number, ProcStat[]>();
    for (const p of all) below.set(p.ppid, [...(below.get(p.ppid) ?? []), p]);
    const sample: CpuSample = { worker: 0, commands: 0 };
    const visit = (p: ProcStat, depth: number) => {
      const part = depth === 0 ? 'worker' : isLauncher(p) ? 'launcher' : 'commands';
      sample[part] = (sample[part] ?? 0) + ms(p.own);
      sample.commands = (sample.commands ?? 0) + ms(p.reaped);
      for (const child of below.get(p.pid) ?? []) visit(child, depth + 1);
    };
    const root = all.find((p) => p.pid === pid);
    if (root) visit(root, 0);
    return sample;
  };
}

/** The whole PostgreSQL server: the postmaster, its live processes, and the backends that exited. */
export async function postgresTree(db: pg.Client): Promise<() => CpuSample> {
  const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const postmaster = stat(rows[0]!.pid)?.ppid;
  if (postmaster === undefined) throw new Error('cannot find the PostgreSQL postmaster in /proc');
  return () => {
    const all = processes();
    const root = all.find((p) => p.pid === postmaster);
    const ticks =
      (root ? root.own + root.reaped : 0) + all.filter((p) => p.ppid === postmaster).reduce((sum, p) => sum + p.own, 0);
    return { postgres: ms(ticks) };
  };
}

/** One process's own CPU ms and what it reaped (its exited children's), or null once it has exited. */
export function processTimes(pid: number): { own: number; reaped: number } | null {
  const p = stat(pid);
  return p && { own: ms(p.own), reaped: ms(p.reaped) };
}

/** One process's own time, as `part` (an API server: it has no children). */
export function processCpu(pid: number, part: string): () => CpuSample {
  return () => ({ [part]: ms(stat(pid)?.own ?? 0) });
}

/** This process's own time, as `part` (the bench's load generator runs in it). */
export function ownCpu(part: string): () => CpuSample {
  return () => {
    const { user, system } = process.cpuUsage();
    return { [part]: (user + system) / 1000 };
  };
}

/** Samples several trees at once, summing the parts they share (two workers' `worker`, say). */
export function combined(...trees: (() => CpuSample)[]): () => CpuSample {
  return () => {
    const sum: CpuSample = {};
    for (const sample of trees.map((tree) => tree())) {
      for (const [part, value] of Object.entries(sample)) sum[part] = (sum[part] ?? 0) + value;
    }
    return sum;
  };
}

/** CPU milliseconds per unit of work (an execution, a request), by part, between two samples. */
export function perUnit(before: CpuSample, after: CpuSample, units: number): CpuSample {
  const split: CpuSample = {};
  for (const part of Object.keys(after)) split[part] = ((after[part] ?? 0) - (before[part] ?? 0)) / units;
  return split;
}

/** CPU milliseconds per execution, by part, between two samples; `besideCommands` sums every part but the commands. */
export function perExecution(before: CpuSample, after: CpuSample, executions: number): CpuSample {
  const split = perUnit(before, after, executions);
  split.besideCommands = Object.entries(split)
    .filter(([part]) => part !== 'commands')
    .reduce((sum, [, value]) => sum + value, 0);
  return split;
}

/** `postgres 0.55 + worker 0.62 + launcher 0.31 = 1.48 ms (commands 1.10 ms)` */
export function describeCpu(split: CpuSample): string {
  const parts = Object.keys(split).filter((part) => part !== 'commands' && part !== 'besideCommands');
  const sum = parts.map((part) => `${part} ${split[part]!.toFixed(2)}`).join(' + ');
  return `${sum} = ${split.besideCommands!.toFixed(2)} ms (commands ${(split.commands ?? 0).toFixed(2)} ms)`;
}
