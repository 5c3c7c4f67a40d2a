// graphile-worker as a user would run it for the bench's peers scenario (peers.ts): one process
// running task PEER_TASK with peer-handler.mjs, configured with the preset options in
// PEER_SETTINGS (JSON; peers.ts holds them and says why). It finds new jobs through its
// LISTEN/NOTIFY (always on); the schema is graphile_worker (run() installs it), the logger its
// console one (this process's log file).
import { run } from 'graphile-worker';
import { runTrue, serve } from './peer-handler.mjs';

const runner = await run({
  connectionString: process.env.DATABASE_URL,
  taskList: { [process.env.PEER_TASK]: (payload) => runTrue(payload) },
  preset: { worker: JSON.parse(process.env.PEER_SETTINGS) },
});
serve(() => runner.stop());
