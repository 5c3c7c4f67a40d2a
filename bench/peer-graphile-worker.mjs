// graphile-worker as a user would run it for the bench's peers scenario (peers.ts): one process
// at concurrency PEER_CONCURRENCY, running task PEER_TASK with peer-handler.mjs. It finds new jobs
// through its LISTEN/NOTIFY (on by default); everything else is its default: the graphile_worker
// schema (run() installs it), pollInterval 2 s, the console logger (this process's log file).
import { run } from 'graphile-worker';
import { runTrue, serve } from './peer-handler.mjs';

const runner = await run({
  connectionString: process.env.DATABASE_URL,
  concurrency: Number(process.env.PEER_CONCURRENCY),
  taskList: { [process.env.PEER_TASK]: (payload) => runTrue(payload) },
});
serve(() => runner.stop());
