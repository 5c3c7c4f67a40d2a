import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { insertJob } from '../support/test-database.js';

interface Received {
  id: number;
  data: { seq: number; type: string };
}

/** A follower of GET /events/stream over real HTTP: collects the events and the bare `id:` lines. */
class Follower {
  readonly events: Received[] = [];
  readonly ids: number[] = [];
  private readonly abort = new AbortController();
  private done: Promise<void> = Promise.resolve();
  status = 0;

  constructor(
    private readonly base: string,
    private readonly query = '',
    private readonly headers: Record<string, string> = {},
  ) {}

  async open(): Promise<this> {
    const res = await fetch(`${this.base}/events/stream${this.query}`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...this.headers },
      signal: this.abort.signal,
    });
    this.status = res.status;
    if (!res.ok || !res.body) return this;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    this.done = (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            this.parse(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        // closed by close()
      }
    })();
    return this;
  }

  private parse(block: string): void {
    let id: number | undefined;
    let data: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) id = Number(line.slice(4));
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (id === undefined) return;
    this.ids.push(id);
    if (data !== undefined) this.events.push({ id, data: JSON.parse(data) as Received['data'] });
  }

  /** What EventSource would send as Last-Event-ID: the last `id:` it saw. */
  lastId(): number {
    return this.ids[this.ids.length - 1]!;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

describe('GET /events/stream', () => {
  let t: TestApp;
  let base: string;
  let jobId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_POLL_INTERVAL_MS: '60000' } }); // wake-ups must come from NOTIFY
    await t.app.listen(0, '127.0.0.1');
    base = await t.app.getUrl();
    jobId = randomUUID();
    await insertJob(t.db, { id: jobId, name: 'streamed' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const queueOne = (client?: pg.Client) =>
    (client ? client.query.bind(client) : t.db.sql)(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now())`,
      [jobId],
    );
  const storedSeqs = async (after = 0): Promise<number[]> =>
    (await t.db.sql('SELECT seq FROM events WHERE seq > $1 ORDER BY seq', [after])).rows.map((r) => Number(r.seq));

  it('sends the events after `after` in order, each with its seq as id, then new ones as they are written', async () => {
    await queueOne();
    await queueOne();
    const follower = await new Follower(base, '?after=0').open();
    try {
      expect(follower.status).toBe(200);
      await waitFor(async () => (follower.events.length === (await storedSeqs()).length ? true : undefined), 'old');
      await queueOne();
      const all = await storedSeqs();
      await waitFor(() => (follower.events.length === all.length ? true : undefined), 'the new event', 3000);
      expect(follower.events.map((e) => e.id)).toEqual(all);
      expect(follower.events.every((e) => e.data.seq === e.id)).toBe(true);
      expect(follower.events[follower.events.length - 1]!.data.type).toBe('execution.queued');
    } finally {
      await follower.close();
    }
  });

  it('without a cursor it starts at the newest event, and says so with a first id', async () => {
    const before = await storedSeqs();
    const follower = await new Follower(base).open();
    try {
      await waitFor(() => (follower.ids.length > 0 ? true : undefined), 'the first id');
      expect(follower.ids[0]).toBe(before[before.length - 1]);
      await queueOne();
      await waitFor(() => (follower.events.length === 1 ? true : undefined), 'the new event', 3000);
      expect(follower.events.map((e) => e.id)).toEqual((await storedSeqs()).slice(before.length));
    } finally {
      await follower.close();
    }
  });

  it('without a cursor it opens at once while a transaction that wrote no event is open', async () => {
    const busy = new pg.Client({ connectionString: t.db.url });
    await busy.connect();
    try {
      await busy.query('BEGIN');
      await busy.query('SELECT pg_current_xact_id()'); // holds a transaction id, as any writer does
      const began = Date.now();
      const follower = await new Follower(base).open();
      try {
        await waitFor(() => (follower.ids.length > 0 ? true : undefined), 'the first id');
        expect(Date.now() - began).toBeLessThan(900); // it used to wait out the 1 s for such a transaction
        expect(follower.ids[0]).toBe((await storedSeqs()).pop());
      } finally {
        await follower.close();
      }
    } finally {
      await busy.end();
    }
  });

  it('Last-Event-ID wins over `after`; a malformed one is a 400 naming it', async () => {
    const all = await storedSeqs();
    const follower = await new Follower(base, '?after=0', { 'Last-Event-ID': String(all[all.length - 2]) }).open();
    try {
      await waitFor(() => (follower.events.length > 0 ? true : undefined), 'the event');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(follower.events.map((e) => e.id)).toEqual(all.slice(-1));
    } finally {
      await follower.close();
    }
    for (const bad of ['-1', 'abc', '1.5', '99999999999999999']) {
      const res = await fetch(`${base}/events/stream`, {
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'Last-Event-ID': bad },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'Last-Event-ID must be the id of an event (a non-negative integer)',
        field: 'Last-Event-ID',
      });
    }
    const res = await fetch(`${base}/events/stream?after=x`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('after must be an integer number');
  });

  it('when the LISTEN connection drops, its return wakes the followers for what was written meanwhile', async () => {
    const follower = await new Follower(base).open();
    try {
      await waitFor(() => (follower.ids.length > 0 ? true : undefined), 'the first id');
      const dropped = await t.db.sql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'orbit-events-listen' AND datname = current_database()`,
      );
      expect(dropped.rowCount).toBe(1);
      await queueOne(); // nobody listens now; the fallback poll is a minute away
      const all = await storedSeqs(follower.ids[0]);
      await waitFor(() => (follower.events.length === all.length ? true : undefined), 'the catch-up', 5000);
      expect(follower.events.map((e) => e.id)).toEqual(all);
    } finally {
      await follower.close();
    }
  });

  it('a follower that reconnects with its last id, while events keep coming, misses none and sees none twice', async () => {
    const start = (await storedSeqs()).pop() ?? 0;
    // writers whose transactions commit out of the order of their seqs
    const writers = await Promise.all(
      [0, 1, 2].map(async () => {
        const client = new pg.Client({ connectionString: t.db.url });
        await client.connect();
        return client;
      }),
    );
    let writing = true;
    const loops = writers.map(async (client) => {
      while (writing) {
        await client.query('BEGIN');
        await queueOne(client);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
        await client.query('COMMIT');
      }
    });
    const received: Received[] = [];
    let last = start;
    try {
      for (let reconnect = 0; reconnect < 4; reconnect++) {
        const follower = await new Follower(base, '', { 'Last-Event-ID': String(last) }).open();
        const target = received.length + 20;
        await waitFor(() => (received.length + follower.events.length >= target ? true : undefined), 'events', 5000, 5);
        await follower.close();
        received.push(...follower.events);
        last = follower.lastId();
      }
    } finally {
      writing = false;
      await Promise.all(loops);
      await Promise.all(writers.map((client) => client.end()));
    }
    const follower = await new Follower(base, '', { 'Last-Event-ID': String(last) }).open();
    const all = await storedSeqs(start);
    await waitFor(() => (received.length + follower.events.length >= all.length ? true : undefined), 'the rest', 5000);
    await follower.close();
    received.push(...follower.events);
    expect(all.length).toBeGreaterThan(80);
    expect(received.map((e) => e.id)).toEqual(all);
  });
});
