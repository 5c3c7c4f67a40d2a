import { jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { createRootLogger } from '../../src/observability/infrastructure/logging.js';
import { JobsService } from '../../src/jobs/application/jobs.service.js';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

// nestjs-pino keeps its root logger per process (per test file under jest): this file's
// capturing app must be the first one it creates, so its tests share that one app.

/** A pino logger whose JSON lines land in an array. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return {
    logger: createRootLogger({ logLevel: 'debug' }, stream),
    lines,
    raw,
  };
}

describe('logs', () => {
  const { logger, lines, raw } = capturedLogger();
  let node: TestApp;
  const http = () => request(node.app.getHttpServer());

  beforeAll(async () => {
    node = await createTestApp({ role: 'all', logger, env: { LOG_LEVEL: 'debug' } });
  });

  afterAll(async () => {
    await node?.close();
  });

  /** The request lines written since `from`. */
  const requestLines = (from: number) => lines.slice(from).filter((l) => typeof l.responseTime === 'number');

  it('runtime log lines carry execution, job and worker ids, and no secret appears in any line', async () => {
    const job = await http()
      .post('/jobs')
      .send({ name: 'logged', command: 'echo hi', cronExpression: '0 0 1 1 *' })
      .expect(201);
    const { body: execution } = await http().post(`/jobs/${job.body.id}/executions`).expect(201);
    const finished = await waitFor(
      () => lines.find((l) => l.executionId === execution.id && l.status === 'SUCCEEDED'),
      'the log line of the finished execution',
      5000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; lines: ${raw.slice(-8).join('\n')}`);
    });
    expect(finished).toMatchObject({ jobId: job.body.id, workerId: expect.any(String), context: 'WorkerService' });
    const password = new URL(node.db.url).password;
    for (const line of raw) {
      expect(line).not.toContain(TEST_ADMIN_TOKEN);
      expect(line).not.toContain(node.db.url);
      expect(line).not.toContain(`:${password}@`);
    }
  });

  it('one line per request at debug: request id, method, url, status and duration, the token redacted', async () => {
    const from = lines.length;
    await http().get('/jobs?limit=1').expect(200);
    await http().get('/jobs/not-a-uuid').expect(400);
    await http().get('/health/live').expect(200); // health checks are not worth a line
    const logged = await waitFor(() => {
      const found = requestLines(from);
      return found.length >= 2 ? found : undefined;
    }, 'two request lines');
    expect(logged).toHaveLength(2);
    const [ok, refused] = logged;
    expect(ok).toMatchObject({
      level: 20,
      msg: 'request completed',
      req: { id: expect.any(Number), method: 'GET', url: '/jobs?limit=1', headers: { authorization: '[redacted]' } },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    expect(refused).toMatchObject({
      level: 20,
      req: { method: 'GET', url: '/jobs/not-a-uuid' },
      res: { statusCode: 400 },
    });
    expect((refused!.req as { id: number }).id).toBeGreaterThan((ok!.req as { id: number }).id);
    for (const line of raw.slice(from)) expect(line).not.toContain(TEST_ADMIN_TOKEN);
  });

  it('a 5xx is logged at error level, and the error line names the request it failed', async () => {
    const spy = jest.spyOn(node.app.get(JobsService), 'list').mockRejectedValueOnce(new Error('the disk is on fire'));
    const from = lines.length;
    try {
      await http().get('/jobs').expect(500);
    } finally {
      spy.mockRestore();
    }
    const [line] = await waitFor(() => {
      const found = requestLines(from);
      return found.length > 0 ? found : undefined;
    }, 'the request line');
    expect(line).toMatchObject({ level: 50, msg: 'request errored', req: { url: '/jobs' }, res: { statusCode: 500 } });
    const error = lines.slice(from).find((l) => l.context === 'HTTP');
    expect(error).toMatchObject({
      level: 50,
      msg: expect.stringContaining('the disk is on fire'),
      req: { id: (line!.req as { id: number }).id, method: 'GET', url: '/jobs' },
    });
  });
});
