import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Postmaster {
  pid: number;
  port: number;
}

/**
 * The PostgreSQL that runs on a cluster folder, from the postmaster.pid it keeps there (line 1
 * its pid, line 4 its port) while that process lives. The file, not a port, ties a running
 * PostgreSQL to its data: another installation's may hold any port.
 */
export function runningPostmaster(pgDir: string): Postmaster | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  return isAlive(pid) ? { pid, port } : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, under another user
  }
}
