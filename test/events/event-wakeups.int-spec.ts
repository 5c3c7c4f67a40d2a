import pg from 'pg';
import { DataSource } from 'typeorm';
import { EventLog } from '../../src/events/application/event-log.js';
import { EventWakeups } from '../../src/events/application/event-wakeups.js';
import { followEvents } from '../../src/events/application/follow-events.js';
import { OrbitEvent } from '../../src/events/domain/orbit-event.js';
import { closeMigratable, migratableDatabase, undoFrom } from '../support/migrations.js';
import { runBySql } from '../support/runs-by-sql.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { insertJob, TestDatabase } from '../support/test-database.js';

const MIGRATION = 'EventWakeupsPerSession1766574000000';

const T0 = new Date('2026-12-06T10:00:00.000Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The transactions that start each of `ids`, one after the other in one round trip of the
 * session (so that they fall within the same 100 ms), the last one rolled back if `rollBackLast`.
 */
function starts(ids: string[], rollBackLast = false): string {
  return ids
    .map((id, i) => {
      const end = rollBackLast && i === ids.length - 1 ? 'ROLLBACK' : 'COMMIT';
      return `BEGIN; UPDATE executions SET status = 'RUNNING', started_at = '${T0.toISOString()}', worker_id = 'w1',
        lease_expires_at = '${T0.toISOString()}'::timestamptz + interval '1 min' WHERE id = '${id}'; ${end};`;
    })
    .join('\n');
}

/**
 * A run's change of status wakes the event stream's followers at most once per 100 ms per
 * database session: each commit that notifies signals every listening connection of the
 * database. A change whose notice was held back is read by the followers' wake after the last
 * notice.
 */
describe("the followers' wake-ups", () => {
  describe('notices of changes of status, by session', () => {
    let db: TestDatabase;
    let source: DataSource;
    let listener: pg.Client;
    let jobId: string;
    let notices = 0;
    // each insert notifies too (the created event's trigger)
    const queued = runBySql(() => db, T0).queue;

    beforeAll(async () => {
      ({ db, source } = await migratableDatabase());
      jobId = await insertJob(db, { name: 'wake-ups' });
      listener = new pg.Client({ connectionString: db.url });
      await listener.connect();
      listener.on('notification', (message) => {
        if (message.channel === 'orbit_events') notices++;
      });
      await listener.query('LISTEN orbit_events');
    });
    afterAll(async () => {
      await listener?.end();
      await closeMigratable(db, source);
    });

    /** The notices that came during `write` and the 300 ms after it. */
    const noticesOf = async (write: () => Promise<unknown>) => {
      const before = notices;
      await write();
      await sleep(300);
      return notices - before;
    };

    it('three changes of one session within 100 ms notify once, and a change after the window again', async () => {
      const ids = [await queued(jobId), await queued(jobId), await queued(jobId)];
      await sleep(300); // the inserts' notices are in
      expect(await noticesOf(() => db.sql(starts(ids)))).toBe(1);
      // past the window: its insert notifies (the created event's trigger), and so does its start
      expect(await noticesOf(async () => db.sql(starts([await queued(jobId)])))).toBe(2);
    });

    it('a change in a transaction that rolled back takes its stamp back with its notice', async () => {
      const [first, second] = [await queued(jobId), await queued(jobId)];
      await sleep(300); // past the window, and the inserts' notices are in
      // the first start is rolled back: nothing was notified, so the second notifies
      expect(await noticesOf(() => db.sql(starts([first], true) + starts([second])))).toBe(1);
      expect((await db.sql(`SELECT status FROM executions WHERE id = $1`, [first])).rows[0].status).toBe('QUEUED');
    });

    it('undone, every transaction that changes a status notifies', async () => {
      await undoFrom(source, MIGRATION);
      const ids = [await queued(jobId), await queued(jobId), await queued(jobId)];
      await sleep(300);
      expect(await noticesOf(() => db.sql(starts(ids)))).toBe(3);
    });
  });

  describe('a follower of the stream', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t?.close());

    it('reads a change whose notice was held back, without waiting for its poll', async () => {
      const jobId = await insertJob(t.db, { name: 'held-back' });
      const { queue } = runBySql(() => t.db, T0);
      const [first, second] = [await queue(jobId), await queue(jobId)];
      const after = Number((await t.db.sql(`SELECT max(seq) AS seq FROM events`)).rows[0].seq);
      const abort = new AbortController();
      const seen: OrbitEvent[] = [];
      const wakeups = t.app.get(EventWakeups);
      const mark = wakeups.mark(); // opens the listening connection, which wakes once it listens
      await wakeups.waitAfter(mark, 5_000, abort.signal);
      const reading = (async () => {
        const events = followEvents(t.app.get(EventLog), wakeups, after, {
          batch: 100,
          pollMs: 60_000,
          signal: abort.signal,
        });
        for await (const event of events) {
          seen.push(event);
          if (seen.filter((e) => e.type === 'execution.running').length === 2) abort.abort();
        }
      })();
      await sleep(200); // the follower has read what there was, and waits
      // the second 50 ms after the first, within its window: the follower has read the first by then
      await t.db.sql(`${starts([first])} SELECT pg_sleep(0.05); ${starts([second])}`);
      const timeout = setTimeout(() => abort.abort(), 10_000);
      await reading;
      clearTimeout(timeout);
      expect(seen.filter((e) => e.type === 'execution.running').map((e) => e.executionId)).toEqual([first, second]);
    });
  });
});
