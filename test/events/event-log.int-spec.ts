import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import pg from 'pg';
import { EventLog } from '../../src/events/application/event-log.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { insertJob } from '../support/test-database.js';

describe('reading the events never passes a gap an open transaction may fill', () => {
  let t: TestApp;
  let log: EventLog;
  let jobId: string;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    log = t.app.get(EventLog);
    jobId = randomUUID();
    await insertJob(t.db, { id: jobId, name: 'gaps' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end()));
    await t?.close();
  });

  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: t.db.url });
    await c.connect();
    clients.push(c);
    return c;
  }
  /** Queues an execution on `c` (its event takes the next seq) and answers that seq. */
  async function queue(c: pg.Client | null): Promise<number> {
    const run = c ? c.query.bind(c) : t.db.sql;
    const { rows } = await run(
      `WITH e AS (INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
                    due_at, created_at)
                  VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now())
                  RETURNING id)
       SELECT 1`,
      [jobId],
    );
    expect(rows).toHaveLength(1);
    const { rows: seq } = await run(`SELECT max(seq) AS seq FROM events`);
    return Number(seq[0].seq);
  }
  const seqs = async (after: number) => (await log.readAfter(after, 100)).map((e) => e.seq);

  it('a later event that committed first waits for the earlier one; then both come, in order', async () => {
    const base = (await seqs(0)).pop() ?? 0;
    const slow = await client();
    await slow.query('BEGIN');
    const first = await queue(slow);
    const second = await queue(null);
    expect([first, second]).toEqual([base + 1, base + 2]);

    const began = Date.now();
    expect(await seqs(base)).toEqual([]); // it waited for the open transaction, then gave up at the gap
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);

    const reading = seqs(base); // waits at the gap...
    await new Promise((resolve) => setTimeout(resolve, 100));
    await slow.query('COMMIT'); // ...until the transaction that fills it ends
    expect(await reading).toEqual([first, second]);
  });

  it('a gap a rollback left is passed once no transaction open when it was seen is left', async () => {
    const base = (await seqs(0)).pop() ?? 0;
    const aborted = await client();
    await aborted.query('BEGIN');
    await queue(aborted);
    await aborted.query('ROLLBACK');
    const next = await queue(null);
    expect(next).toBe(base + 2);
    expect(await seqs(base)).toEqual([next]);
  });

  it('events up to the gap come at once', async () => {
    const base = (await seqs(0)).pop() ?? 0;
    const before = await queue(null);
    const slow = await client();
    await slow.query('BEGIN');
    await queue(slow);
    await queue(null);
    try {
      expect(await seqs(base)).toEqual([before]);
    } finally {
      await slow.query('COMMIT');
    }
    expect(await seqs(base)).toEqual([before, before + 1, before + 2]);
  });
  /** Starts a queued execution on `c`: the guard hands the start its seq, which this answers. */
  async function start(c: pg.Client | null, seq: number): Promise<number> {
    const run = c ? c.query.bind(c) : t.db.sql;
    const { rows } = await run(
      `UPDATE executions SET status = 'RUNNING', started_at = now(), worker_id = 'w', lease_expires_at = now() + interval '1 minute'
        WHERE id = (SELECT execution_id FROM event_log WHERE seq = $1) RETURNING started_seq`,
      [seq],
    );
    return Number((rows as [{ started_seq: string }])[0].started_seq);
  }

  it('a status change, whose event the row holds, is waited for like a written event', async () => {
    const base = (await seqs(0)).pop() ?? 0;
    const queued = await queue(null);
    const slow = await client();
    await slow.query('BEGIN');
    const started = await start(slow, queued);
    const next = await queue(null);
    expect([queued, started, next]).toEqual([base + 1, base + 2, base + 3]);

    expect(await seqs(base)).toEqual([queued]); // the start's seq is a gap while it is open
    const reading = seqs(base);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await slow.query('COMMIT');
    expect(await reading).toEqual([queued, started, next]);
    expect((await log.readAfter(queued, 1))[0]).toMatchObject({
      type: 'execution.running',
      from: 'QUEUED',
      to: 'RUNNING',
      workerId: 'w',
    });
  });

  it('a status change rolled back leaves a gap that is passed, and no event', async () => {
    const base = (await seqs(0)).pop() ?? 0;
    const queued = await queue(null);
    const aborted = await client();
    await aborted.query('BEGIN');
    await start(aborted, queued);
    await aborted.query('ROLLBACK');
    const next = await queue(null);
    expect(next).toBe(base + 3);
    expect(await seqs(base)).toEqual([queued, next]);
  });

  it('the newest seq waits for a transaction that wrote an event, which may hold a smaller seq', async () => {
    const slow = await client();
    await slow.query('BEGIN');
    const held = await queue(slow);
    const newest = await queue(null);
    expect(newest).toBe(held + 1);

    let answered: number | undefined;
    const latest = log.latestSeq().then((seq) => (answered = seq));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBeUndefined(); // a stream that started after `newest` now would never get `held`
    await slow.query('COMMIT');
    expect(await latest).toBe(newest);
  });

  it('the newest seq, while a writer stays open past the wait, is before the gap it may fill', async () => {
    const slow = await client();
    await slow.query('BEGIN');
    const held = await queue(slow);
    const newest = await queue(null);
    let start: number;
    try {
      const began = Date.now();
      start = await log.latestSeq();
      expect(Date.now() - began).toBeGreaterThanOrEqual(900); // it waited for the writer, which stayed
      expect(start).toBeLessThan(held); // from `newest`, a stream would never get `held`
    } finally {
      await slow.query('COMMIT');
    }
    const followed = await seqs(start);
    expect(followed.filter((seq) => seq >= held)).toEqual([held, newest]);
  });

  it('the newest seq is one statement, with no wait, while transactions that wrote no event are open', async () => {
    const newest = await queue(null);
    const busy = await client();
    await busy.query('BEGIN');
    await busy.query('SELECT pg_current_xact_id()'); // holds a transaction id, as any writer does
    const statements = jest.spyOn(t.app.get(Database), 'rows');
    try {
      const began = Date.now();
      expect(await log.latestSeq()).toBe(newest);
      expect(statements).toHaveBeenCalledTimes(1);
      expect(Date.now() - began).toBeLessThan(900); // it used to wait out the 1 s for such a transaction
      expect(await seqs(newest - 1)).toEqual([newest]);
      expect(statements).toHaveBeenCalledTimes(2);
    } finally {
      statements.mockRestore();
      await busy.query('COMMIT');
    }
  });

  describe("a read of some teams' events", () => {
    let otherJob: string;
    beforeAll(async () => {
      await t.db.sql(`INSERT INTO teams (name, created_at) VALUES ('other', now())`);
      otherJob = randomUUID();
      await insertJob(t.db, { id: otherJob, name: 'elsewhere' });
      await t.db.sql(`UPDATE jobs SET team = 'other' WHERE id = $1`, [otherJob]);
    });
    /** Queues a run of the other team's job on `c` and answers its seq. */
    async function queueOther(c: pg.Client | null): Promise<number> {
      const run = c ? c.query.bind(c) : t.db.sql;
      await run(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at,
                                 created_at)
         VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now())`,
        [otherJob],
      );
      const { rows } = await run(`SELECT max(seq) AS seq FROM events`);
      return Number(rows[0].seq);
    }
    const ours = async (after: number) => (await log.readAfter(after, 100, ['default'])).map((e) => e.seq);

    it("answers the team's events only, passing over the others'", async () => {
      const base = (await seqs(0)).pop() ?? 0;
      const first = await queue(null);
      const theirs = await queueOther(null);
      const second = await queue(null);
      expect([first, theirs, second]).toEqual([base + 1, base + 2, base + 3]);
      expect(await ours(base)).toEqual([first, second]);
      expect((await log.readAfter(base, 100, ['other'])).map((e) => e.seq)).toEqual([theirs]);
      expect(await log.readAfter(base, 100, [])).toEqual([]);
    });

    it("never passes a gap that another team's open transaction may fill", async () => {
      const base = (await seqs(0)).pop() ?? 0;
      const before = await queue(null);
      const slow = await client();
      await slow.query('BEGIN');
      const held = await queueOther(slow);
      const after = await queue(null);
      expect([before, held, after]).toEqual([base + 1, base + 2, base + 3]);

      expect(await ours(base)).toEqual([before]); // it waited, then gave up at the other team's gap
      const reading = ours(base);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await slow.query('COMMIT');
      expect(await reading).toEqual([before, after]);
    });

    it('passes a gap a rollback left', async () => {
      const base = (await seqs(0)).pop() ?? 0;
      const aborted = await client();
      await aborted.query('BEGIN');
      await queueOther(aborted);
      await aborted.query('ROLLBACK');
      const next = await queue(null);
      expect(next).toBe(base + 2);
      expect(await ours(base)).toEqual([next]);
    });
  });
});
