import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Orbit's version, from its package.json, read at start: the nearest one above this file that is
 * Orbit's, so alike from src/ (tests), dist/src/ (a build) and an image's /app/dist/src/.
 */
export const ORBIT_VERSION: string = versionAbove(dirname(fileURLToPath(import.meta.url)));

function versionAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (name === 'orbit' && typeof version === 'string') return version;
    }
    if (dirname(dir) === dir) throw new Error(`No package.json of orbit in ${start} or above it`);
  }
}
