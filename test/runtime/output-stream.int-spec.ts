import http from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import request from 'supertest';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { OUTPUT_POLL_MS, OutputPolls } from '../../src/executions/application/output-polls.js';
import { longestOverlap, MIN_OVERLAP, newText } from '../../src/shared/domain/text-tail.js';
import type { Schema } from '../support/api-types.js';
import { createJob } from '../support/jobs.js';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { finalExecution, waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;

interface ServerSentEvent {
  event: string;
  data: unknown;
}

interface Stream {
  status: number;
  contentType: string | undefined;
  headers: http.IncomingHttpHeaders;
  /** The parsed events, filled in as they arrive. */
  events: ServerSentEvent[];
  /** The JSON body of a refusal (not an event stream). */
  body: unknown;
  /** Resolves when the server ends the response. */
  ended: Promise<void>;
  /** Hangs up, as a client that goes away. */
  close(): void;
}

/** Opens an SSE request with a plain http.get and parses `event:` / `data:` lines as they come. */
function openStream(port: number, path: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
      (res) => {
        const events: ServerSentEvent[] = [];
        let buffer = '';
        let raw = '';
        let event = 'message';
        let data: string[] = [];
        res.setEncoding('utf8');
        // 'close' comes after 'end', and also when the client hangs up ('error': aborted)
        res.on('error', () => undefined);
        const ended = new Promise<void>((done) => res.on('close', done));
        res.on('data', (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line === '') {
              if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) });
              event = 'message';
              data = [];
            } else if (line.startsWith('event: ')) {
              event = line.slice('event: '.length);
            } else if (line.startsWith('data: ')) {
              data.push(line.slice('data: '.length));
            }
          }
        });
        const stream: Stream = {
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          headers: res.headers,
          events,
          get body() {
            return raw === '' ? undefined : (JSON.parse(raw) as unknown);
          },
          ended,
          close: () => req.destroy(),
        };
        resolve(stream);
      },
    );
    req.on('error', reject);
  });
}

/** What the stdout (or stderr) events of a stream add up to. */
const printed = (events: ServerSentEvent[], stream = 'stdout'): string =>
  events
    .filter((e) => e.event === stream)
    .map((e) => e.data as string)
    .join('');

describe('GET /executions/:id/output/stream follows a real command', () => {
  let t: TestApp;
  let port: number;
  const workDir = join(tmpdir(), `orbit-output-stream-test-${process.pid}`);
  const api = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_WORK_DIR: workDir, ORBIT_OUTPUT_LIMIT_KB: '1', ORBIT_POLL_INTERVAL_MS: '200' },
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await t?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function queue(command: string): Promise<Execution> {
    const job = await createJob(t, { command });
    const execution = await api().post(`/jobs/${job.id}/executions`);
    expect(execution.status).toBe(201);
    return execution.body as Execution;
  }

  const settled = (id: string): Promise<Execution> => finalExecution((path) => api().get(path), id);

  const streamOf = (id: string) => openStream(port, `/executions/${id}/output/stream`);

  let followed: Execution;

  it('delivers the lines as they are printed, in order and once each, then `end` and closes', async () => {
    followed = await queue('for i in 1 2 3 4 5; do echo line $i; sleep 0.4; done');

    const stream = await streamOf(followed.id);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(stream.headers['x-content-type-options']).toBe('nosniff'); // the security headers, as on every answer
    expect(stream.headers['content-security-policy']).toContain("default-src 'self'");
    await stream.ended;

    const { events } = stream;
    expect(printed(events)).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n');
    expect(events.filter((e) => e.event === 'stdout').length).toBeGreaterThanOrEqual(2); // live, not all at the end
    expect(events.some((e) => e.event === 'truncated' || e.event === 'stderr' || e.event === 'error')).toBe(false);
    expect(events.filter((e) => e.event === 'end')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'SUCCEEDED', exitCode: 0 } });
    expect((await api().get(`/executions/${followed.id}`)).body.status).toBe('SUCCEEDED');
  });

  it('of a finished execution: the whole output at once, then `end`', async () => {
    const started = Date.now();
    const stream = await streamOf(followed.id);
    await stream.ended;

    expect(stream.events).toEqual([
      { event: 'stdout', data: 'line 1\nline 2\nline 3\nline 4\nline 5\n' },
      { event: 'end', data: { status: 'SUCCEEDED', exitCode: 0 } },
    ]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('streams stderr as its own events and ends with the status and exit code of a failure', async () => {
    const execution = await queue('echo out; echo oops >&2; sleep 0.3; echo again >&2; exit 3');

    const stream = await streamOf(execution.id);
    await stream.ended;

    expect(printed(stream.events)).toBe('out\n');
    expect(printed(stream.events, 'stderr')).toBe('oops\nagain\n');
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'FAILED', exitCode: 3 } });
  });

  it('sends a character written in two parts, with a pause between them, once and whole', async () => {
    // é is \303\251
    const execution = await queue(`printf 'caf\\303'; sleep 3; printf '\\251\\n'`);

    const stream = await streamOf(execution.id);
    await stream.ended;

    expect(stream.events.filter((e) => e.event === 'stdout').map((e) => e.data)).toEqual(['caf', 'é\n']);
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'SUCCEEDED', exitCode: 0 } });
  });

  it('keeps following once older output is dropped (1 KiB kept): every line once, none lost', async () => {
    // about 500 bytes a second for 5 s: each stored tail overlaps the one before
    const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i + 1).padStart(3, '0')} ${'x'.repeat(40)}\n`);
    const execution = await queue(
      'for i in $(seq 1 50); do printf "line %03d %s\\n" $i xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; sleep 0.1; done',
    );

    const stream = await streamOf(execution.id);
    await stream.ended;

    const output = await api().get(`/executions/${execution.id}/output`);
    expect(output.body.truncated).toBe(true);
    expect(output.body.stdout.length).toBeLessThan(lines.join('').length);
    expect(stream.events.some((e) => e.event === 'truncated')).toBe(false);
    expect(printed(stream.events)).toBe(lines.join(''));
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'SUCCEEDED', exitCode: 0 } });
  });

  it('says `truncated` when more was printed between two reads than is kept, then sends the whole tail', async () => {
    const execution = await queue('echo first; sleep 2.5; head -c 5000 /dev/zero | tr "\\0" a; echo; echo last');

    const stream = await streamOf(execution.id);
    await stream.ended;

    const { body } = await api().get(`/executions/${execution.id}/output`);
    const events = stream.events.map((e) => e.event);
    expect(events[0]).toBe('stdout');
    expect(stream.events[0]!.data).toBe('first\n');
    const gap = events.indexOf('truncated');
    expect(gap).toBeGreaterThan(0);
    expect(stream.events[gap]!.data).toEqual({ stream: 'stdout' });
    expect(body.stdout).toMatch(/^a+\nlast\n$/);
    expect(printed(stream.events.slice(gap)).endsWith(body.stdout)).toBe(true);
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'SUCCEEDED' } });
  });

  it('stops reading the output once the client hangs up', async () => {
    const execution = await queue('echo started; sleep 30');
    const reads = jest.spyOn(t.app.get(ExecutionsService), 'output');
    try {
      const stream = await streamOf(execution.id);
      await waitFor(() => (printed(stream.events) === 'started\n' ? true : undefined), 'the first line');
      expect(reads.mock.calls.length).toBeGreaterThan(0);

      stream.close();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const afterHangUp = reads.mock.calls.length;
      await new Promise((resolve) => setTimeout(resolve, 1_500));

      expect(reads.mock.calls.length).toBe(afterHangUp);
    } finally {
      reads.mockRestore();
      await api().post(`/executions/${execution.id}/cancel`);
      await settled(execution.id);
    }
  });

  it('clients following one run share one read of it; the read stops when the last one leaves', async () => {
    const execution = await queue('echo started; sleep 30');
    const other = await queue('echo other; sleep 30');
    const polls = t.app.get(OutputPolls);
    const reads = jest.spyOn(t.app.get(ExecutionsService), 'output');
    try {
      const first = await streamOf(execution.id);
      await waitFor(() => (printed(first.events) === 'started\n' ? true : undefined), 'the first line');
      const second = await streamOf(execution.id); // joins the read that runs
      const elsewhere = await streamOf(other.id);
      await waitFor(() => (printed(second.events) === 'started\n' ? true : undefined), 'the line, to the second');
      await waitFor(() => (printed(elsewhere.events) === 'other\n' ? true : undefined), 'the other run');
      expect(polls.running).toBe(2);

      const readsOf = (id: string) => reads.mock.calls.filter(([read]) => read === id).length;
      const before = readsOf(execution.id);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // one read every 400 ms for both clients, not one each
      expect(readsOf(execution.id) - before).toBeLessThanOrEqual(2_000 / OUTPUT_POLL_MS + 1);

      first.close();
      await first.ended;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(polls.running).toBe(2); // the second still follows
      second.close();
      elsewhere.close();
      await waitFor(() => (polls.running === 0 ? true : undefined), 'the reads stopped');
    } finally {
      reads.mockRestore();
      for (const id of [execution.id, other.id]) await api().post(`/executions/${id}/cancel`);
      await Promise.all([settled(execution.id), settled(other.id)]);
    }
  });

  it('an unknown id is a JSON 404 before any event', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const stream = await openStream(port, `/executions/${id}/output/stream`);
    await stream.ended;

    expect(stream.status).toBe(404);
    expect(stream.contentType).toMatch(/^application\/json/);
    expect(stream.events).toEqual([]);
    expect(stream.body).toEqual({ statusCode: 404, message: `Execution ${id} not found`, error: 'Not Found' });
  });

  it('a malformed id is a JSON 400', async () => {
    const stream = await openStream(port, '/executions/not-a-uuid/output/stream');
    await stream.ended;

    expect(stream.status).toBe(400);
    expect(stream.body).toEqual({ statusCode: 400, message: expect.any(String), error: 'Bad Request' });
  });
});

describe('newText: what a stored tail adds to what was sent', () => {
  const tailOf = (text: string, limit: number) => text.slice(-limit);

  it('is the rest when the tail extends what was sent', () => {
    expect(newText('a\nb\n', 'a\nb\nc\n')).toEqual({ text: 'c\n', gap: false });
    expect(newText('', 'x')).toEqual({ text: 'x', gap: false });
    expect(newText('same', 'same')).toEqual({ text: '', gap: false });
  });

  it('finds the overlap once the start of the tail was dropped', () => {
    const full = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join('');
    const sent = tailOf(full.slice(0, 600), 500);
    const tail = tailOf(full, 500);

    expect(newText(sent, tail)).toEqual({ text: full.slice(600), gap: false });
  });

  it('skips the rest of a multi-byte character cut at the start of the tail', () => {
    const sent = `${'é'.repeat(100)}\n`;
    const tail = `\uFFFD${'é'.repeat(80)}\nnew\n`;

    expect(newText(sent, tail)).toEqual({ text: 'new\n', gap: false });
  });

  it('reports a gap, with the whole tail, when nothing of what was sent is left', () => {
    const sent = 'a'.repeat(10) + 'b'.repeat(200);
    const tail = 'c'.repeat(300);

    expect(newText(sent, tail)).toEqual({ text: tail, gap: true });
  });

  it(`takes an overlap shorter than ${MIN_OVERLAP} characters for chance, and reports a gap`, () => {
    const sent = `${'x'.repeat(200)}\nend\n`;
    const tail = `end\n${'y'.repeat(200)}`;

    expect(newText(sent, tail)).toEqual({ text: tail, gap: true });
  });

  it('an empty tail adds nothing', () => {
    expect(newText('something', '')).toEqual({ text: '', gap: false });
  });

  it('longestOverlap is the longest suffix of the first that starts the second', () => {
    expect(longestOverlap('abcabc', 'abcabcx')).toBe(6);
    expect(longestOverlap('xxabab', 'ababzz')).toBe(4);
    expect(longestOverlap('aaaa', 'aab')).toBe(2);
    expect(longestOverlap('abc', 'xyz')).toBe(0);
    expect(longestOverlap('', 'abc')).toBe(0);
    expect(longestOverlap('abc', '')).toBe(0);
  });

  it('for any text cut into tails of any size, the overlaps rebuild it exactly', () => {
    const full = Array.from({ length: 400 }, (_, i) => `${i % 7 === 0 ? 'same line' : `line ${i}`}\n`).join('');
    for (const limit of [200, 1_000]) {
      for (const step of [37, 150]) {
        if (step >= limit - MIN_OVERLAP) continue;
        let sent = '';
        let rebuilt = '';
        for (let end = step; end <= full.length + step; end += step) {
          const tail = tailOf(full.slice(0, end), limit);
          const { text, gap } = newText(sent, tail);
          expect(gap).toBe(false);
          rebuilt += text;
          sent = tail;
        }
        expect(rebuilt).toBe(full);
      }
    }
  });
});
