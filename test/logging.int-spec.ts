import { Writable } from 'node:stream';
import { createRootLogger } from '../src/observability/infrastructure/logging.js';
import request from 'supertest';
import { createTestApp, TEST_ADMIN_TOKEN } from './support/test-app.js';
import { waitFor } from './support/wait.js';

// nestjs-pino keeps its root logger per process (per test file under jest): this file's
// capturing app must be the first one it creates.

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
  it('runtime log lines carry execution, job and worker ids, and no secret appears in any line', async () => {
    const { logger, lines, raw } = capturedLogger();
    const node = await createTestApp({ role: 'all', logger, env: { LOG_LEVEL: 'debug' } });
    try {
      const http = () => request(node.app.getHttpServer());
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
    } finally {
      await node.close();
    }
  });
});
