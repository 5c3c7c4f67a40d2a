import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Orbit's package folder: the nearest folder above this file whose package.json is Orbit's, so
 * alike from src/ (tests), dist/src/ (a build) and an image's /app/dist/src/.
 */
export const ORBIT_ROOT: string = packageAbove(dirname(fileURLToPath(import.meta.url)));

/** Orbit's version, from its package.json, read at start. */
export const ORBIT_VERSION: string = (
  JSON.parse(readFileSync(join(ORBIT_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

function packageAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (name === 'orbit' && typeof version === 'string') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`No package.json of orbit in ${start} or above it`);
  }
}
