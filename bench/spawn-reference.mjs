// The machine's limit: how many `/bin/sh -c true` a bare Node process completes per second
// at a given concurrency. Prints {"perSecond": N}.
import { spawn } from 'node:child_process';

const [total, concurrency] = process.argv.slice(2).map(Number);
let started = 0;
let finished = 0;
const begin = process.hrtime.bigint();
await new Promise((resolve) => {
  const next = () => {
    if (started >= total) return;
    started++;
    spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' }).once('exit', () => {
      if (++finished === total) resolve();
      else next();
    });
  };
  for (let i = 0; i < concurrency; i++) next();
});
const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
console.log(JSON.stringify({ perSecond: total / seconds }));
