import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the command line finds Orbit, and as whom. */
export interface Settings {
  url: string;
  token: string | undefined;
}

const DEFAULT_URL = 'http://localhost:3000';

/** The user's config folder (XDG), where `orbit login` keeps the URL and the token. */
export function settingsFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'orbit', 'config.json');
}

/** ORBIT_URL and ORBIT_TOKEN win over what `orbit login` stored. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const stored = readStored(settingsFile(env));
  return {
    url: (env.ORBIT_URL || stored.url || DEFAULT_URL).replace(/\/+$/, ''),
    token: env.ORBIT_TOKEN || stored.token,
  };
}

/** Readable by the user alone (0600, its folder 0700): the file holds a secret. */
export function storeSettings(settings: Settings, env: NodeJS.ProcessEnv = process.env): string {
  const file = settingsFile(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode applies only to a file it creates
  return file;
}

function readStored(file: string): Partial<Settings> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<Settings>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${file} is not readable: ${(error as Error).message}`, { cause: error });
  }
}
