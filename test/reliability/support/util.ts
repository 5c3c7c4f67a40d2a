import { existsSync, readdirSync, readFileSync } from 'node:fs';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export { freePort, isAlive, waitFor } from '../../support/wait.js';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  /** Its name, as `ps -o comm` and `pkill` see it (/proc/<pid>/comm: at most 15 bytes). */
  comm: string;
  /** Its session (setsid starts a new one). */
  session: number;
}

/** A live (not zombie) process as /proc shows it now, or undefined. */
export function processEntry(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // after the name (which may hold spaces and parentheses): state, ppid, pgrp, session, ...
  const [state, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (state === 'Z') return undefined;
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  return { pid, ppid: Number(ppid), pgrp: Number(pgrp), comm, session: Number(session) };
}

/** Every live process. */
function processes(): ProcessEntry[] {
  if (!existsSync('/proc')) return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => processEntry(Number(entry)) ?? []);
}

/** Pids of the live direct children of `pid`, read from /proc. */
export function childrenOf(pid: number): number[] {
  return processes()
    .filter((entry) => entry.ppid === pid)
    .map((entry) => entry.pid);
}

/** `pid` and every live process below it, parents before their children (one read of /proc). */
export function processTree(pid: number): ProcessEntry[] {
  const all = processes();
  const tree = all.filter((entry) => entry.pid === pid);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((entry) => entry.ppid === tree[i]!.pid));
  return tree;
}

/** The q-quantile (0..1) of some numbers (nearest rank); NaN for none. */
export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

export const ms = (value: number) => `${Math.round(value)} ms`;
export const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(2)} s`;

/** Prints a scenario's figures as a two-column table. */
export function printFigures(title: string, figures: Record<string, string | number>): void {
  const rows = Object.entries(figures).map(([name, value]) => [name, String(value)] as const);
  const width = Math.max(...rows.map(([name]) => name.length), 6);
  const valueWidth = Math.max(...rows.map(([, value]) => value.length), 5);
  const rule = `+${'-'.repeat(width + 2)}+${'-'.repeat(valueWidth + 2)}+`;
  const lines = [
    `Reliability: ${title}`,
    rule,
    ...rows.map(([name, value]) => `| ${name.padEnd(width)} | ${value.padStart(valueWidth)} |`),
    rule,
  ];
  console.log(lines.join('\n'));
}

/** Maps `items` through `work` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** How many items fall under each key. */
export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}
