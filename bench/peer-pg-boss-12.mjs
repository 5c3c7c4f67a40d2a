// pg-boss 12 (installed as pg-boss-12) as a user would run it for the bench's peers scenario
// (peers.ts), running queue PEER_TASK with peer-handler.mjs, with the settings in PEER_SETTINGS
// (JSON; peers.ts holds them and says why): LISTEN/NOTIFY on (the instance's useListenNotify and
// the queue's notify), one work() call with localConcurrency lanes, each fetching a batch and
// running its jobs one after the other, and fetching again at once while batches come back full
// (burstWhenBatchFull). Its own schema (start() installs it); maintenance and cron as by default.
import { PgBoss } from 'pg-boss-12';
import { runBatch, serve } from './peer-handler.mjs';

const { schema, useListenNotify, notify, ...work } = JSON.parse(process.env.PEER_SETTINGS);
const queue = process.env.PEER_TASK;
const boss = new PgBoss({ connectionString: process.env.DATABASE_URL, schema, useListenNotify });
boss.on('error', (error) => console.error('pg-boss error:', error));
boss.on('warning', (warning) => console.error('pg-boss warning:', warning));
await boss.start();
await boss.createQueue(queue, { notify });
await boss.work(queue, work, runBatch);
serve(() => boss.stop());
