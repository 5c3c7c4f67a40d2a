// pg-boss (v10) as a user would run it for the bench's peers scenario (peers.ts), set for low
// latency at concurrency PEER_CONCURRENCY, running queue PEER_TASK with peer-handler.mjs.
// pg-boss polls (v10 has no LISTEN/NOTIFY for workers), so every worker polls at the smallest
// interval it accepts, 0.5 s. In v10 concurrency is one polling worker per work() call, so there
// are PEER_CONCURRENCY of them, each fetching one job at a time: one worker with a batch of 8
// would poll 8 times less often and wait for its slowest job before fetching again. Everything
// else is its default: the pgboss schema (start() installs it), maintenance and its cron monitor.
import PgBoss from 'pg-boss';
import { runTrue, serve } from './peer-handler.mjs';

/** pg-boss asserts pollingIntervalSeconds >= 0.5 (its MIN_POLLING_INTERVAL_MS, 500). */
const POLLING_INTERVAL_SECONDS = 0.5;

const queue = process.env.PEER_TASK;
const boss = new PgBoss({ connectionString: process.env.DATABASE_URL });
boss.on('error', (error) => console.error('pg-boss error:', error));
await boss.start();
await boss.createQueue(queue);
for (let i = 0; i < Number(process.env.PEER_CONCURRENCY); i++) {
  await boss.work(queue, { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS }, ([job]) => runTrue(job.data));
}
serve(() => boss.stop());
