import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { EventConsumers } from '../../src/events/application/event-consumers.js';
import { OrbitEvent } from '../../src/events/domain/orbit-event.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { insertJob } from '../support/test-database.js';

describe('a consumer inside Orbit keeps its cursor in the database', () => {
  let t: TestApp;
  let other: TestApp; // a second process on the same database
  let jobId: string;

  beforeAll(async () => {
    t = await createTestApp();
    other = await createTestApp({ db: t.db });
    await t.db.sql(`CREATE TABLE handled (consumer text NOT NULL, seq bigint NOT NULL)`);
    jobId = randomUUID();
    await insertJob(t.db, { id: jobId, name: 'consumed' });
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const queue = (count: number) =>
    t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now()
         FROM generate_series(1, $2::int)`,
      [jobId, count],
    );
  const allSeqs = async () => (await t.db.sql('SELECT seq FROM events ORDER BY seq')).rows.map((r) => Number(r.seq));
  const handledBy = async (consumer: string) =>
    (await t.db.sql('SELECT seq FROM handled WHERE consumer = $1 ORDER BY seq', [consumer])).rows.map((r) =>
      Number(r.seq),
    );
  const cursorOf = async (consumer: string) =>
    (await t.db.sql('SELECT after_seq FROM event_cursors WHERE consumer = $1', [consumer])).rows.map((r) =>
      Number(r.after_seq),
    )[0];
  /** A handler whose writes go through Orbit's Database, so they join the consumer's transaction. */
  const recording = (app: TestApp, consumer: string) => async (events: readonly OrbitEvent[]) => {
    for (const event of events) {
      await app.app.get(Database).rows('INSERT INTO handled (consumer, seq) VALUES ($1, $2)', [consumer, event.seq]);
    }
  };

  it('handles every event once, in order, batch after batch, and moves its cursor with its writes', async () => {
    await queue(7);
    const consumers = t.app.get(EventConsumers);
    const handle = recording(t, 'in-order');
    const counts: number[] = [];
    for (let n = -1; n !== 0;) counts.push((n = await consumers.consume('in-order', 3, handle)));
    const seqs = await allSeqs();
    expect(seqs).toHaveLength(8); // the job's creation and 7 executions queued
    expect(counts).toEqual([3, 3, 2, 0]);
    expect(await handledBy('in-order')).toEqual(seqs);
    expect(await cursorOf('in-order')).toBe(seqs[seqs.length - 1]);
  });

  it('a handler that throws leaves the cursor and its own writes as they were; the next call handles those events', async () => {
    const consumers = t.app.get(EventConsumers);
    await consumers.consume('crashy', 1000, recording(t, 'crashy'));
    const cursor = await cursorOf('crashy');
    await queue(2);
    const failing = async (events: readonly OrbitEvent[]) => {
      await recording(t, 'crashy')(events);
      throw new Error('the handler crashed');
    };
    await expect(consumers.consume('crashy', 1000, failing)).rejects.toThrow('the handler crashed');
    expect(await cursorOf('crashy')).toBe(cursor);
    const seqs = await allSeqs();
    expect(await handledBy('crashy')).toEqual(seqs.filter((s) => s <= cursor!));

    // another process (after a crash, say) resumes exactly there
    expect(await other.app.get(EventConsumers).consume('crashy', 1000, recording(other, 'crashy'))).toBe(2);
    expect(await handledBy('crashy')).toEqual(seqs);
  });

  it('two processes consuming as one consumer take turns: no event is handled twice, none is skipped', async () => {
    await queue(40);
    let active = 0;
    let overlapped = false;
    const slow = (app: TestApp) => async (events: readonly OrbitEvent[]) => {
      active++;
      if (active > 1) overlapped = true;
      await new Promise((resolve) => setTimeout(resolve, 10));
      await recording(app, 'shared')(events);
      active--;
    };
    const drain = async (app: TestApp) => {
      const consumers = app.app.get(EventConsumers);
      while ((await consumers.consume('shared', 4, slow(app))) > 0);
    };
    await Promise.all([drain(t), drain(other), drain(t), drain(other)]);
    expect(overlapped).toBe(false);
    expect(await handledBy('shared')).toEqual(await allSeqs());
  });

  it("an idle consumer's head is the stream's head, read without its events; a busy one has none; skipTo moves forward only", async () => {
    const consumers = t.app.get(EventConsumers);
    await queue(3);
    const seqs = await allSeqs();
    const last = seqs[seqs.length - 1]!;

    expect(await consumers.idleHead('idle', () => Promise.resolve(true))).toEqual({ idle: true, head: last });
    expect(await consumers.idleHead('idle', () => Promise.resolve(false))).toEqual({ idle: false, head: null });
    await consumers.skipTo('idle', last);
    expect(await cursorOf('idle')).toBe(last);
    await consumers.skipTo('idle', last - 2);
    expect(await cursorOf('idle')).toBe(last);
    expect(await consumers.consume('idle', 1000, recording(t, 'idle'))).toBe(0);
    expect(await handledBy('idle')).toEqual([]);
  });

  it('the head is read before the idle check: an event committed meanwhile stays ahead of it', async () => {
    const consumers = t.app.get(EventConsumers);
    await queue(1);
    const head = (await allSeqs()).at(-1)!;
    // the check is where a change that makes the consumer busy would be seen; events land first
    const landing = async () => {
      await queue(2);
      return true;
    };
    expect(await consumers.idleHead('racing', landing)).toEqual({ idle: true, head });
    await consumers.skipTo('racing', head);
    expect(await consumers.consume('racing', 1000, recording(t, 'racing'))).toBe(2);
    expect(await handledBy('racing')).toEqual((await allSeqs()).slice(-2));
  });

  it('no head while a transaction that may still add an event below it is open', async () => {
    const consumers = t.app.get(EventConsumers);
    const writer = new pg.Client({ connectionString: t.db.url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
         VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now())`,
        [jobId],
      );
      await queue(1); // committed, with a seq after the open one
      expect(await consumers.idleHead('open', () => Promise.resolve(true))).toEqual({ idle: true, head: null });
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    expect(await consumers.idleHead('open', () => Promise.resolve(true))).toEqual({
      idle: true,
      head: (await allSeqs()).at(-1),
    });
  });

  it('refuses a blank consumer name and a limit below 1', () => {
    const consumers = t.app.get(EventConsumers);
    const nothing = () => Promise.resolve();
    expect(() => consumers.idleHead('', () => Promise.resolve(true))).toThrow('consumer must be 1 to 200 characters');
    expect(() => consumers.skipTo(' ', 1)).toThrow('consumer must be 1 to 200 characters');
    expect(() => consumers.consume(' ', 1, nothing)).toThrow('consumer must be 1 to 200 characters');
    expect(() => consumers.consume('x', 0, nothing)).toThrow('limit must be a positive integer');
  });
});
