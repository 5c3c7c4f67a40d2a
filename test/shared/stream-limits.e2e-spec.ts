import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamLimits } from '../../src/shared/http/stream-limits.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { insertJob } from '../support/test-database.js';
import { waitFor } from '../support/wait.js';

/** An open stream over real HTTP, or the refusal that answered instead. */
interface Opened {
  status: number;
  retryAfter: string | null;
  /** The JSON body of a refusal. */
  body: unknown;
  /** Resolves once the server has ended the stream (or the client closed it). */
  ended: Promise<void>;
  close(): Promise<void>;
}

async function open(base: string, path: string, token: string): Promise<Opened> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` }, signal: abort.signal });
  if (!res.ok || !res.body) {
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: await res.json(),
      ended: Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  const reader = res.body.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // closed by close()
    }
  })();
  return {
    status: res.status,
    retryAfter: null,
    body: undefined,
    ended,
    close: async () => {
      abort.abort();
      await ended;
    },
  };
}

/** The `orbit_streams_open` samples of GET /metrics, by kind. */
async function openOnMetrics(base: string): Promise<Record<string, number>> {
  const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const text = await res.text();
  return Object.fromEntries(
    [...text.matchAll(/^orbit_streams_open\{kind="(\w+)"\} (\d+)$/gm)].map(([, kind, n]) => [kind!, Number(n)]),
  );
}

describe('open streams are capped per token and per node', () => {
  let t: TestApp;
  let base: string;
  let viewer: string;
  let other: string;
  let queued: string;
  const streams: Opened[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { ORBIT_STREAMS_PER_CALLER: '3', ORBIT_STREAMS_PER_NODE: '5' } });
    await t.app.listen(0, '127.0.0.1');
    base = await t.app.getUrl();
    const token = async (name: string) => {
      const res = await fetch(`${base}/tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, role: 'viewer' }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { token: string }).token;
    };
    viewer = await token('dashboard-wall');
    other = await token('someone-else');
    const jobId = randomUUID();
    await insertJob(t.db, { id: jobId, name: 'followed' });
    // queued for tomorrow (no worker on an api node): its output stream stays open
    const { rows } = await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       VALUES (gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now() + interval '1 day', now()) RETURNING id`,
      [jobId],
    );
    queued = rows[0].id as string;
  });
  afterAll(async () => {
    await Promise.all(streams.map((s) => s.close()));
    await t?.close();
  });

  const keep = async (opened: Promise<Opened>): Promise<Opened> => {
    const stream = await opened;
    streams.push(stream);
    return stream;
  };
  const output = () => `/executions/${queued}/output/stream`;

  it('a token holds 3 streams of either kind; the 4th is a 429 that says why, with Retry-After', async () => {
    const held = [
      await keep(open(base, '/events/stream', viewer)),
      await keep(open(base, output(), viewer)),
      await keep(open(base, output(), viewer)),
    ];
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);

    for (const path of ['/events/stream', output()]) {
      const refused = await open(base, path, viewer);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('5');
      expect(refused.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message:
          "Too many open streams: 'dashboard-wall' has 3 open on this node, at most 3 (ORBIT_STREAMS_PER_CALLER); " +
          'close one, then try again',
      });
    }
    expect(await openOnMetrics(base)).toEqual({ events: 1, output: 2 });
  });

  it('another token is not held back by it', async () => {
    const mine = await keep(open(base, '/events/stream', other));
    expect(mine.status).toBe(200);
  });

  it('a closed stream frees its place for a new one', async () => {
    const [first] = streams.splice(0, 1);
    await first!.close();
    await waitFor(async () => ((await openOnMetrics(base)).events === 1 ? true : undefined), 'the close counted');

    const again = await keep(open(base, '/events/stream', viewer));
    expect(again.status).toBe(200);
    expect((await open(base, '/events/stream', viewer)).status).toBe(429);
  });

  it('the node holds 5 in all; beyond, every token is refused, and a stream that ends frees its place', async () => {
    expect((await keep(open(base, output(), other))).status).toBe(200); // the 5th
    expect(await openOnMetrics(base)).toEqual({ events: 2, output: 3 });

    for (const token of [other, TEST_ADMIN_TOKEN]) {
      const refused = await open(base, '/events/stream', token);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('5');
      expect((refused.body as { message: string }).message).toBe(
        'Too many open streams: this node serves 5, at most 5 (ORBIT_STREAMS_PER_NODE); try again shortly, or another node',
      );
    }

    // the run ends: its output streams end, and count no more
    const cancel = await fetch(`${base}/executions/${queued}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(cancel.status).toBe(200);
    await waitFor(async () => ((await openOnMetrics(base)).output === 0 ? true : undefined), 'the ends counted');
    const after = await keep(open(base, '/events/stream', TEST_ADMIN_TOKEN));
    expect(after.status).toBe(200);
  });

  it('a refusal before the stream opens (an unknown run) does not keep its place', async () => {
    const before = await openOnMetrics(base);
    const unknown = await open(base, `/executions/${randomUUID()}/output/stream`, other);
    expect(unknown.status).toBe(404);
    expect(await openOnMetrics(base)).toEqual(before);
  });
});

describe('a node that shuts down', () => {
  it('ends its streams, counts them closed, and does not wait for the clients to hang up', async () => {
    const t = await createTestApp({ env: { ORBIT_STREAMS_PER_CALLER: '2' } });
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const limits = t.app.get(StreamLimits);
    // a client that keeps its connections open for as long as the server does
    const agent = new http.Agent({ keepAlive: true });
    const ends = await Promise.all(
      [1, 2].map(
        () =>
          new Promise<{ ended: Promise<void> }>((opened, failed) => {
            const options = {
              port,
              path: '/events/stream',
              agent,
              headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
            };
            http
              .get(options, (res) => {
                expect(res.statusCode).toBe(200);
                res.resume();
                opened({ ended: new Promise((ended) => res.on('end', ended)) });
              })
              .on('error', failed);
          }),
      ),
    );
    expect(limits.openOf('events')).toBe(2);

    try {
      await t.close(); // would wait for the agent to drop its connections, which it never does
      await Promise.all(ends.map((s) => s.ended));
      expect(limits.openOf('events')).toBe(0);
    } finally {
      agent.destroy();
    }
  });
});
