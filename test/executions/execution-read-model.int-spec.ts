import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/postgres/data-source-options.js';
import { ExecutionReadModel } from '../../src/executions/application/execution-read-model.js';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { ExecutionResponse } from '../../src/executions/http/dto/execution.response.js';
import { Job } from '../../src/jobs/domain/job.js';
import { decodeCursor } from '../../src/shared/application/page.js';
import { FakeClock } from '../support/fake-clock.js';
import { undoFrom } from '../support/migrations.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, insertJob } from '../support/test-database.js';

const T0 = new Date('2026-11-30T10:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

let t: TestApp;
let reads: ExecutionReadModel;
let executions: ExecutionRepository;

beforeAll(async () => {
  t = await createTestApp({ clock: new FakeClock(T0) });
  reads = t.app.get(ExecutionReadModel);
  executions = t.app.get(ExecutionRepository);
});

afterAll(async () => {
  await t?.close();
});

/** Inserts a run of `job`, then applies and saves each change in turn (the database checks every step). */
async function stored(job: Job, createdAt: Date, ...changes: ((execution: Execution) => void)[]): Promise<Execution> {
  const execution = Execution.forJob(job, createdAt);
  await executions.insert(execution);
  for (const change of changes) {
    change(execution);
    await executions.save(execution);
  }
  return execution;
}

/** What the API answered before the read model: the domain object, mapped and serialized in Node. */
async function mappedInNode(id: string): Promise<string> {
  return JSON.stringify(ExecutionResponse.from((await executions.findById(id))!));
}

describe('ExecutionReadModel', () => {
  it('writes every kind of execution exactly as ExecutionResponse, field for field and in its order', async () => {
    const job = await storedJob(t, { command: 'printf "%s\\n" \'quoted "text"\' \\\\ é ✓', maxRetries: 2 });
    const queued = await stored(job, at(0));
    const running = await stored(job, at(1), (e) => e.start(at(2), 'host-a:42:ab'));
    const succeeded = await stored(
      job,
      at(3),
      (e) => e.start(at(4)),
      (e) => e.succeed(0, at(5)),
    );
    const failed = await stored(
      job,
      at(6),
      (e) => e.start(at(7), 'w'),
      (e) => e.fail(-1, 'line 1\nline 2\t"quoted" \\ back\u0001slash ✓ 日本', at(8)),
    );
    const retry = failed.retry(at(8), 1500);
    await executions.insert(retry);
    const cancelled = await stored(job, at(9), (e) => e.cancel(at(10), { by: 'caller', actor: 'test' }));
    const scheduled = Execution.forJob(job, at(11), { trigger: 'SCHEDULE', scheduledFor: at(12), dueAt: at(12) });
    await executions.insert(scheduled);

    for (const execution of [queued, running, succeeded, failed, retry, cancelled, scheduled]) {
      const json = await reads.findJson(execution.id);
      expect(json).not.toBeNull();
      expect(JSON.parse(json!)).toEqual(JSON.parse(await mappedInNode(execution.id)));
      expect(Object.keys(JSON.parse(json!))).toEqual(Object.keys(ExecutionResponse.from(execution)));
    }
  });

  it('truncates sub-millisecond timestamps as toISOString does', async () => {
    const job = await storedJob(t, { maxRetries: 2 });
    const execution = await stored(job, at(20));
    await t.db.sql(
      `UPDATE executions SET created_at = '2026-11-30T10:00:20.123999Z', due_at = '1999-12-31T23:59:59.999999Z'
       WHERE id = $1`,
      [execution.id],
    );
    const json = JSON.parse((await reads.findJson(execution.id))!);
    expect(json).toEqual(JSON.parse(await mappedInNode(execution.id)));
    expect(json).toMatchObject({ createdAt: '2026-11-30T10:00:20.123Z', dueAt: '1999-12-31T23:59:59.999Z' });
  });

  it('keeps the JSON in step with a change written by plain SQL', async () => {
    const job = await storedJob(t, { maxRetries: 2 });
    const execution = await stored(job, at(30), (e) => e.start(at(31), 'host-a:1:aa'));
    await t.db.sql(`UPDATE executions SET worker_id = 'host-b:2:bb', lease_expires_at = now() WHERE id = $1`, [
      execution.id,
    ]);
    const json = JSON.parse((await reads.findJson(execution.id))!);
    expect(json).toEqual(JSON.parse(await mappedInNode(execution.id)));
    expect(json).toMatchObject({ workerId: 'host-b:2:bb', status: 'RUNNING' });
  });

  it('makes the JSON of rows bulk-loaded with triggers off (session_replication_role = replica)', async () => {
    const job = await storedJob(t, { maxRetries: 2 });
    const id = randomUUID();
    await t.db.sql(`SET session_replication_role = replica`);
    try {
      await t.db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
           due_at, created_at, started_at, finished_at, exit_code, worker_id, version)
         VALUES ($1, $2, 'true', 0, 60, 'SUCCEEDED', 1, 'MANUAL', $3, $3, $4, $4, 0, 'loader', 3)`,
        [id, job.id, at(40), at(41)],
      );
    } finally {
      await t.db.sql(`RESET session_replication_role`);
    }
    const json = JSON.parse((await reads.findJson(id))!);
    expect(json).toEqual(JSON.parse(await mappedInNode(id)));
    expect(json).toMatchObject({ status: 'SUCCEEDED', finishedAt: at(41).toISOString() });
  });

  it('answers null for an unknown id', async () => {
    await expect(reads.findJson(randomUUID())).resolves.toBeNull();
  });

  it('lists newest first with the job and status filters', async () => {
    const job = await storedJob(t, { maxRetries: 2 });
    const other = await storedJob(t, { maxRetries: 2 });
    const a = await stored(job, at(100));
    const b = await stored(job, at(101), (e) => e.start(at(103)));
    const c = await stored(other, at(102));
    const ids = (page: { items: string[] }) => page.items.map((item) => (JSON.parse(item) as { id: string }).id);

    const ofJob = await reads.listJson({ jobId: job.id }, { limit: 10 });
    expect(ids(ofJob)).toEqual([b.id, a.id]);
    expect(ofJob.nextCursor).toBeNull();
    expect(ofJob.items[0]).toEqual(await reads.findJson(b.id));

    expect(ids(await reads.listJson({ jobId: job.id, status: ExecutionStatus.QUEUED }, { limit: 10 }))).toEqual([a.id]);
    expect(ids(await reads.listJson({ jobId: other.id }, { limit: 10 }))).toEqual([c.id]);
  });

  it('pages by cursor through rows created in the same millisecond, each once', async () => {
    const job = await storedJob(t, { maxRetries: 2 });
    const made = [];
    for (let i = 0; i < 7; i++) made.push(await stored(job, at(200 + (i % 3))));
    const expected = made
      .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : -1))
      .map((e) => e.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await reads.listJson(
        { jobId: job.id },
        { limit: 3, cursor: cursor ? decodeCursor(cursor) : undefined },
      );
      seen.push(...page.items.map((item) => (JSON.parse(item) as { id: string }).id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });
});

describe('the ExecutionResponseJson migration', () => {
  it('leaves older rows as they were: reads make their JSON, before and after a change', async () => {
    const db = await createTestDatabase();
    const source = new DataSource(dataSourceOptions(db.url, 1));
    await source.initialize();
    let app: TestApp | undefined;
    try {
      // back to the schema just before ExecutionResponseJson, undoing any migration that came after it
      await undoFrom(source, 'ExecutionResponseJson1764806400000');
      const { rows: columns } = await db.sql(
        `SELECT 1 FROM information_schema.columns WHERE table_name = 'executions' AND column_name = 'response_json'`,
      );
      expect(columns).toEqual([]);
      const jobId = randomUUID();
      await insertJob(db, { id: jobId, name: 'before', cronExpression: '* * * * *', createdAt: T0 });
      const { rows } = await db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
           due_at, created_at, version)
         VALUES (gen_random_uuid(), $1, 'echo "old"', 0, 60, 'QUEUED', 1, 'MANUAL', $2, $2, 1) RETURNING id`,
        [jobId, T0],
      );
      const id = rows[0].id as string;
      await source.runMigrations({ transaction: 'all' });

      app = await createTestApp({ db, clock: new FakeClock(T0) });
      const read = app.app.get(ExecutionReadModel);
      const expected = {
        id,
        jobId,
        command: 'echo "old"',
        maxRetries: 0,
        timeoutSeconds: 60,
        status: 'QUEUED',
        attempt: 1,
        trigger: 'MANUAL',
        scheduledFor: null,
        retryOf: null,
        dueAt: T0.toISOString(),
        createdAt: T0.toISOString(),
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        errorMessage: null,
        workerId: null,
        workerSelector: {},
        pinnedWorker: null,
        maxConcurrent: null,
        concurrencyGroup: null,
        priority: 0,
        waitingFor: null,
        parameters: {},
        triggeredBy: null,
        maxDurationSeconds: null,
        cancelledBy: null,
      };
      expect(JSON.parse((await read.findJson(id))!)).toEqual(expected);
      const page = await read.listJson({ jobId }, { limit: 10 });
      expect(page.items.map((item) => JSON.parse(item) as unknown)).toEqual([expected]);

      await db.sql(`UPDATE executions SET status = 'CANCELLED', finished_at = $2 WHERE id = $1`, [id, at(5)]);
      const cancelled = { ...expected, status: 'CANCELLED', finishedAt: at(5).toISOString() };
      expect(JSON.parse((await read.findJson(id))!)).toEqual(cancelled);
    } finally {
      await app?.close();
      await source.destroy();
      await db.drop();
    }
  });
});
