import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { CliError } from './api-client.js';

/** What `orbit export` writes first: editors with the YAML language server validate against it. */
export function schemaComment(url: string): string {
  return `# yaml-language-server: $schema=${url}/schemas/orbit-file.json\n`;
}

/** An orbit file, parsed, its `${NAME}` placeholders filled in from the environment. */
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
  return fillIn(document, '', env) as Record<string, unknown>;
}

export function orbitFileText(file: unknown, url: string): string {
  return schemaComment(url) + stringify(file, { lineWidth: 0 });
}

/** Secrets stay out of the file: `secret: ${OPS_WEBHOOK_SECRET}` is read from the environment. */
function fillIn(value: unknown, path: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const found = env[name];
      if (found === undefined) throw new CliError(`${path}: the environment variable ${name} is not set`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => fillIn(item, `${path}[${index}]`, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, fillIn(item, path ? `${path}.${key}` : key, env)]),
    );
  }
  return value;
}
