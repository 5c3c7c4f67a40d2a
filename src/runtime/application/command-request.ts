import type { OrbitConfig } from '../../config/orbit-config.js';
import type { Execution } from '../../executions/domain/execution.js';
import { parameterVariable } from '../../jobs/domain/job-parameters.js';
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
  // values reach the command as variables only, never in its text: the shell does not parse them
  for (const [name, value] of Object.entries(execution.parameters)) env[parameterVariable(name)] = value;
  if (execution.scheduledFor) env.ORBIT_SCHEDULED_FOR = execution.scheduledFor.toISOString();
  if (execution.triggeredBy && execution.upstreamStatus) {
    env.ORBIT_UPSTREAM_EXECUTION_ID = execution.triggeredBy;
    env.ORBIT_UPSTREAM_STATUS = execution.upstreamStatus;
  }
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
