import type { OrbitConfig } from '../../config/orbit-config.js';
import type { Execution } from '../../executions/domain/execution.js';
import type { CommandRequest } from './command-runner.js';

/** Variables a command gets from the server's environment; nothing else leaks (no DATABASE_URL, no tokens). */
const INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'TMPDIR'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** How an execution's command is run: its environment, directory, timeout and limits. */
export function commandRequestFor(
  execution: Execution,
  config: OrbitConfig,
  serverEnv: NodeJS.ProcessEnv = process.env,
): CommandRequest {
  const env: Record<string, string> = { PATH: DEFAULT_PATH };
  for (const name of INHERITED_ENV) {
    const value = serverEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    ORBIT_EXECUTION_ID: execution.id,
    ORBIT_JOB_ID: execution.jobId,
    ORBIT_ATTEMPT: String(execution.attempt),
  });
  return {
    id: execution.id,
    command: execution.command,
    cwd: config.workDir,
    env,
    timeoutMs: execution.timeoutSeconds * 1000,
    killGraceMs: config.killGraceSeconds * 1000,
    outputLimitBytes: config.outputLimitKb * 1024,
  };
}
