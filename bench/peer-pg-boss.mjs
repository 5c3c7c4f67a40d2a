// pg-boss 10 as a user would run it for the bench's peers scenario (peers.ts), running queue
// PEER_TASK with peer-handler.mjs. pg-boss 10 has no LISTEN/NOTIFY for workers, and one work()
// call is one polling worker, so concurrency is PEER_SETTINGS.workers work() calls, each one a
// lane that fetches a batch of PEER_SETTINGS.batchSize jobs, runs them one after the other, and
// fetches again at once if the batch took longer than the polling interval (its floor, 0.5 s).
// Everything else is its default: the pgboss schema (start() installs it), maintenance and its
// cron monitor.
import PgBoss from 'pg-boss';
import { runBatch, serve } from './peer-handler.mjs';

const { workers, batchSize, pollingIntervalSeconds } = JSON.parse(process.env.PEER_SETTINGS);
const queue = process.env.PEER_TASK;
const boss = new PgBoss({ connectionString: process.env.DATABASE_URL });
boss.on('error', (error) => console.error('pg-boss error:', error));
await boss.start();
await boss.createQueue(queue);
for (let i = 0; i < workers; i++) {
  await boss.work(queue, { batchSize, pollingIntervalSeconds }, runBatch);
}
serve(() => boss.stop());
