// What the peer processes (peer-graphile-worker.mjs, peer-pg-boss.mjs, peer-pg-boss-12.mjs) share:
// the job handlers and the IPC link to the bench (peers.ts).
//
// The handler runs `/bin/sh -c true` the way Orbit's spawner runs a command: a real child
// process, stdout and stderr piped and collected, waited for until it exited and both pipes
// closed. It keeps each run's start and end (Date.now(), so on the bench's clock) in memory and
// hands them over only when the bench asks: measuring costs the peer an array push per job, not
// a message or a query.
//
//   bench → peer: {type: 'report'} (the runs ended since the last report), {type: 'stop'}
//   peer → bench: {type: 'ready'}, {type: 'report', runs: [{tag, n, startedAt, endedAt, code}]}
import { spawn } from 'node:child_process';

let runs = [];

/** The job's handler; `payload` is what the bench queued: {tag, n}. Throws (the job fails) unless `true` exits 0. */
export async function runTrue(payload) {
  const startedAt = Date.now();
  const { code, stderr } = await runCommand();
  runs.push({ tag: payload.tag, n: payload.n, startedAt, endedAt: Date.now(), code });
  if (code !== 0) throw new Error(`/bin/sh -c true exited with ${code}: ${stderr}`);
}

/**
 * A pg-boss batch handler: its jobs one after the other (a lane of the peer's concurrency). pg-boss
 * settles a batch as a whole, so a failed job fails the batch, after the others have run.
 */
export async function runBatch(jobs) {
  const errors = [];
  for (const job of jobs) await runTrue(job.data).catch((error) => errors.push(error));
  if (errors.length > 0) throw errors[0];
}

function runCommand() {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.once('error', (error) => resolve({ code: null, stdout: '', stderr: error.message }));
    // 'close' comes after the exit, once both pipes have drained
    child.once('close', (code) =>
      resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
  });
}

/** Tells the bench the worker runs, then answers it until it says stop (`stop` stops the worker) or goes away. */
export function serve(stop) {
  process.on('message', (message) => {
    if (message.type === 'report') {
      process.send({ type: 'report', runs });
      runs = [];
    } else if (message.type === 'stop') {
      void stop().finally(() => process.exit(0));
    }
  });
  // the bench ended or was interrupted: nobody measures any more
  process.once('disconnect', () => process.exit(0));
  process.send({ type: 'ready' });
}
