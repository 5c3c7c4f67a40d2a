import pino, { DestinationStream, Logger as PinoRoot } from 'pino';
import type { OrbitConfig } from '../../config/orbit-config.js';

/** Paths whose values never reach a log line, wherever a caller put them. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.secret',
  '*.databaseUrl',
  '*.adminToken',
];

/**
 * The process's one pino logger: JSON lines, or readable lines when stdout is a terminal;
 * level from LOG_LEVEL. Nest and the HTTP request log both write through it.
 */
export function createRootLogger(config: Pick<OrbitConfig, 'logLevel'>, destination?: DestinationStream): PinoRoot {
  const options = {
    level: config.logLevel,
    base: { pid: process.pid },
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  return pino({
    ...options,
    ...(process.stdout.isTTY
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
      : {}),
  });
}
