import { existsSync, readFileSync } from 'node:fs';
import { isAlive } from './util.js';

export interface RecordedPid {
  executionId: string;
  attempt: number;
  pid: number;
}

/**
 * A command that appends `<execution id> <attempt> <pid>` to `file`, then becomes `then` by
 * exec (so the recorded pid is the long-running process itself, not a shell waiting on it).
 */
export function recordingPid(file: string, then: string): string {
  return `echo "$ORBIT_EXECUTION_ID $ORBIT_ATTEMPT $$" >> ${file}; exec ${then}`;
}

/** The complete lines of a pid file written by `recordingPid` commands. */
export function readPids(file: string): RecordedPid[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^([0-9a-f-]{36}) (\d+) (\d+)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ executionId: match[1]!, attempt: Number(match[2]), pid: Number(match[3]) }));
}

/** The recorded processes that still run. */
export function stillAlive(pids: RecordedPid[]): RecordedPid[] {
  return pids.filter((entry) => isAlive(entry.pid));
}
