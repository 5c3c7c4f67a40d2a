// Builds the native launcher (src/runtime/infrastructure/launcher) with the system's C compiler,
// at install time. Without a compiler, or when the build fails, it says so in one line and
// succeeds: Orbit then starts commands through its Node spawner. With --if-stale (as `npm run
// build` and the test suite run it) it does nothing while the launcher is newer than its source.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src/runtime/infrastructure/launcher');
const LAUNCHER_BINARY = join(root, 'dist/native/orbit-launcher');

const sources = readdirSync(source).filter((file) => /\.[ch]$/.test(file));
const fresh =
  existsSync(LAUNCHER_BINARY) &&
  sources.every((file) => statSync(join(source, file)).mtimeMs <= statSync(LAUNCHER_BINARY).mtimeMs);
if (process.argv.includes('--if-stale') && fresh) process.exit(0);

const compiler = process.env.CC || 'cc';
mkdirSync(dirname(LAUNCHER_BINARY), { recursive: true });
const build = spawnSync(
  compiler,
  [
    '-O2',
    '-Wall',
    '-Wextra',
    '-o',
    LAUNCHER_BINARY,
    ...sources.filter((file) => file.endsWith('.c')).map((file) => join(source, file)),
    '-lm',
  ],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
);
if (build.error) {
  console.log(
    `orbit: no C compiler (${compiler}) found, so no native launcher: commands start through the Node spawner`,
  );
} else if (build.status !== 0) {
  const reason = build.stderr.split('\n').find((line) => line.includes('error')) ?? `exit code ${build.status}`;
  console.log(`orbit: the native launcher did not build (${reason.trim()}): commands start through the Node spawner`);
} else {
  if (build.stderr.trim()) process.stderr.write(build.stderr);
  console.log(`orbit: built the native launcher at ${LAUNCHER_BINARY}`);
}
