// The machine's limit: how many `/bin/sh -c true` a bare Node process completes per second
// at a given concurrency, and the CPU it took per command, from /proc: the Node process's own, and
// the commands' (what it reaped). Prints {"perSecond": N, "cpuMs": {"worker": ms, "commands": ms}}.
// With a third argument `pipes`, each command gets its own process group and its stdout and stderr
// piped and read, as Orbit's spawner starts them (src/runtime/infrastructure/spawner.cjs).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** utime + stime and cutime + cstime of this process, in ms (USER_HZ 100). */
function times() {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const f = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { own: (f[11] + f[12]) * 10, reaped: (f[13] + f[14]) * 10 };
}

const [total, concurrency] = process.argv.slice(2, 4).map(Number);
const pipes = process.argv[4] === 'pipes';
const options = pipes ? { stdio: ['ignore', 'pipe', 'pipe'], detached: true } : { stdio: 'ignore' };
const before = times();
let started = 0;
let finished = 0;
const begin = process.hrtime.bigint();
await new Promise((resolve) => {
  const next = () => {
    if (started >= total) return;
    started++;
    const child = spawn('/bin/sh', ['-c', 'true'], options);
    if (pipes) for (const stream of [child.stdout, child.stderr]) stream.on('data', () => undefined);
    child.once(pipes ? 'close' : 'exit', () => {
      if (++finished === total) resolve();
      else next();
    });
  };
  for (let i = 0; i < concurrency; i++) next();
});
const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
const after = times();
console.log(
  JSON.stringify({
    perSecond: total / seconds,
    cpuMs: { worker: (after.own - before.own) / total, commands: (after.reaped - before.reaped) / total },
  }),
);
