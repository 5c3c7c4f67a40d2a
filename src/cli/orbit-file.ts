import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { CliError } from './api-client.js';

/** What `orbit export` writes first: editors with the YAML language server validate against it. */
export function schemaComment(url: string): string {
  return `# yaml-language-server: $schema=${url}/schemas/orbit-file.json\n`;
}

/**
 * An orbit file, parsed, the `${NAME}` placeholders of its channels' secrets and URLs filled in
 * from the environment.
 */
export function readOrbitFile(path: string, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  let text: string;
  try {
    text = path === '-' ? readFileSync(0, 'utf8') : readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new CliError(`${path} is not valid YAML: ${(error as Error).message}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new CliError(`${path} must hold a mapping (channels:, jobs:)`);
  }
  return fillIn(document as Record<string, unknown>, env);
}

export function orbitFileText(file: unknown, url: string): string {
  return schemaComment(url) + stringify(file, { lineWidth: 0 });
}

/**
 * The fields of a channel that take `${NAME}` from the environment: its secret and its URL (a
 * Slack URL is one), what `orbit export` writes as `${ORBIT_CHANNEL_…}` placeholders, so that
 * secrets stay out of the file. Nothing else is filled: a job's command keeps its `${X}` for the
 * shell, and no variable of the machine that applies lands in a field every viewer reads.
 */
const FILLED_CHANNEL_FIELDS = ['secret', 'url'];

/** `${NAME}` is the variable's value (it must be set); `$${` is a literal `${`. */
const PLACEHOLDER = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function fillIn(file: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const channels = file.channels;
  if (channels === null || typeof channels !== 'object' || Array.isArray(channels)) return file;
  const filled = Object.entries(channels as Record<string, unknown>).map(([name, channel]): [string, unknown] => {
    if (channel === null || typeof channel !== 'object' || Array.isArray(channel)) return [name, channel];
    const fields = Object.entries(channel as Record<string, unknown>).map(([field, value]): [string, unknown] =>
      FILLED_CHANNEL_FIELDS.includes(field) && typeof value === 'string'
        ? [field, fillString(value, `channels.${name}.${field}`, env)]
        : [field, value],
    );
    return [name, Object.fromEntries(fields)];
  });
  return { ...file, channels: Object.fromEntries(filled) };
}

function fillString(value: string, path: string, env: NodeJS.ProcessEnv): string {
  return value.replace(PLACEHOLDER, (_match, name: string | undefined) => {
    if (name === undefined) return '${'; // the escape, $${
    const found = env[name];
    if (found === undefined) throw new CliError(`${path}: the environment variable ${name} is not set`);
    return found;
  });
}
