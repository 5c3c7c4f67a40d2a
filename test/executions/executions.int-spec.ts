import { randomUUID } from 'node:crypto';
import { ExecutionOutputRepository } from '../../src/executions/application/execution-output.repository.js';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { JobRepository } from '../../src/jobs/application/job.repository.js';
import { Job } from '../../src/jobs/domain/job.js';
import { ConflictError, StaleWriteError } from '../../src/shared/domain/domain-errors.js';
import { FakeClock } from '../support/fake-clock.js';
import { storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';

const T0 = new Date('2026-11-30T10:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

let t: TestApp;
let executions: ExecutionRepository;
let jobs: JobRepository;

beforeAll(async () => {
  t = await createTestApp({ clock: new FakeClock(T0) });
  executions = t.app.get(ExecutionRepository);
  jobs = t.app.get(JobRepository);
});

afterAll(async () => {
  await t?.close();
});

async function storedExecution(job?: Job, createdAt: Date = T0): Promise<Execution> {
  const owner = job ?? (await storedJob(t));
  const execution = Execution.create(
    {
      jobId: owner.id,
      command: owner.command,
      maxRetries: owner.maxRetries,
      timeoutSeconds: owner.timeoutSeconds,
      maxDurationSeconds: owner.maxDurationSeconds,
    },
    createdAt,
  );
  await executions.insert(execution);
  return execution;
}

async function row(id: string): Promise<Record<string, unknown>> {
  const { rows } = await t.db.sql('SELECT * FROM executions WHERE id = $1', [id]);
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, unknown>;
}

type Columns = {
  status: string;
  started_at?: Date | null;
  finished_at?: Date | null;
  exit_code?: number | null;
  error_message?: string | null;
  worker_id?: string | null;
};

/** Inserts an execution row by raw SQL, bypassing the domain entirely. */
async function insertRow(jobId: string, columns: Columns): Promise<string> {
  const id = randomUUID();
  await t.db.sql(
    `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger,
       due_at, created_at, started_at, finished_at, exit_code, error_message, worker_id)
     VALUES ($1, $2, 'echo raw', 0, 60, $3, 1, 'MANUAL', $4, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      jobId,
      columns.status,
      T0,
      columns.started_at ?? null,
      columns.finished_at ?? null,
      columns.exit_code ?? null,
      columns.error_message ?? null,
      columns.worker_id ?? null,
    ],
  );
  return id;
}

const started = at(1);
const finished = at(2);

/** One well-formed row per status: what each status requires and forbids. */
const VALID_SHAPES: Array<[string, Columns]> = [
  ['QUEUED', { status: 'QUEUED' }],
  ['RUNNING', { status: 'RUNNING', started_at: started }],
  ['RUNNING on a worker', { status: 'RUNNING', started_at: started, worker_id: 'host-a:1' }],
  ['SUCCEEDED', { status: 'SUCCEEDED', started_at: started, finished_at: finished, exit_code: 0 }],
  ['FAILED', { status: 'FAILED', started_at: started, finished_at: finished, exit_code: 1, error_message: 'boom' }],
  ['CANCELLED before it started', { status: 'CANCELLED', finished_at: finished }],
  ['CANCELLED while running', { status: 'CANCELLED', started_at: started, finished_at: finished }],
];

const INVALID_SHAPES: Array<[string, Columns]> = [
  ['a QUEUED row with started_at', { status: 'QUEUED', started_at: started }],
  ['a QUEUED row with finished_at', { status: 'QUEUED', finished_at: finished }],
  ['a QUEUED row with an exit code', { status: 'QUEUED', exit_code: 0 }],
  ['a QUEUED row with an error message', { status: 'QUEUED', error_message: 'boom' }],
  ['a QUEUED row with a worker', { status: 'QUEUED', worker_id: 'host-a:1' }],
  ['a RUNNING row without started_at', { status: 'RUNNING' }],
  ['a RUNNING row with finished_at', { status: 'RUNNING', started_at: started, finished_at: finished }],
  ['a RUNNING row with an exit code', { status: 'RUNNING', started_at: started, exit_code: 0 }],
  ['a SUCCEEDED row without finished_at', { status: 'SUCCEEDED', started_at: started, exit_code: 0 }],
  ['a SUCCEEDED row without started_at', { status: 'SUCCEEDED', finished_at: finished, exit_code: 0 }],
  ['a SUCCEEDED row without an exit code', { status: 'SUCCEEDED', started_at: started, finished_at: finished }],
  [
    'a SUCCEEDED row with an error message',
    { status: 'SUCCEEDED', started_at: started, finished_at: finished, exit_code: 0, error_message: 'boom' },
  ],
  [
    'a FAILED row without an error message',
    { status: 'FAILED', started_at: started, finished_at: finished, exit_code: 1 },
  ],
  [
    'a FAILED row without an exit code',
    { status: 'FAILED', started_at: started, finished_at: finished, error_message: 'boom' },
  ],
  ['a FAILED row without finished_at', { status: 'FAILED', started_at: started, exit_code: 1, error_message: 'boom' }],
  ['a CANCELLED row without finished_at', { status: 'CANCELLED' }],
  ['a CANCELLED row with an exit code', { status: 'CANCELLED', finished_at: finished, exit_code: 0 }],
  ['a CANCELLED row with an error message', { status: 'CANCELLED', finished_at: finished, error_message: 'boom' }],
];

describe('executions table constraints (raw SQL)', () => {
  let job: Job;

  beforeAll(async () => {
    job = await storedJob(t);
  });

  it.each(VALID_SHAPES)('a well-formed %s row is accepted', async (_label, columns) => {
    const id = await insertRow(job.id, columns);
    expect((await row(id)).status).toBe(columns.status);
  });

  it.each(Object.values(ExecutionStatus))('the domain status %s is one the table accepts', async (status) => {
    const shape = VALID_SHAPES.find(([, columns]) => columns.status === (status as string));
    expect(shape).toBeDefined();
    const id = await insertRow(job.id, shape![1]);
    expect((await row(id)).status).toBe(status);
  });

  it.each(['BOGUS', 'queued', 'DONE', ''])('a status of %p has no partition to go to: refused', async (status) => {
    await expect(insertRow(job.id, { status })).rejects.toMatchObject({
      code: '23514',
      message: 'no partition of relation "executions" found for row',
    });
  });

  it('updating a row to a bogus status is rejected (no edge of the lifecycle leads there) and leaves the row alone', async () => {
    const id = await insertRow(job.id, { status: 'QUEUED' });
    await expect(t.db.sql(`UPDATE executions SET status = 'PAUSED' WHERE id = $1`, [id])).rejects.toMatchObject({
      code: '23514',
      constraint: 'executions_transition_check',
    });
    expect((await row(id)).status).toBe('QUEUED');
  });

  it.each(INVALID_SHAPES)('%s is rejected by executions_shape_check', async (_label, columns) => {
    await expect(insertRow(job.id, columns)).rejects.toMatchObject({
      code: '23514',
      constraint: 'executions_shape_check',
    });
  });

  it('an update that moves a QUEUED row to RUNNING without its startedAt is rejected by executions_shape_check', async () => {
    const id = await insertRow(job.id, { status: 'QUEUED' });
    await expect(t.db.sql(`UPDATE executions SET status = 'RUNNING' WHERE id = $1`, [id])).rejects.toMatchObject({
      code: '23514',
      constraint: 'executions_shape_check',
    });
    expect((await row(id)).status).toBe('QUEUED');
  });

  it('an execution must belong to an existing job', async () => {
    await expect(insertRow(randomUUID(), { status: 'QUEUED' })).rejects.toMatchObject({ code: '23503' });
  });
});

describe('ExecutionRepository', () => {
  it('reads back exactly what was inserted', async () => {
    const job = await storedJob(t, { command: 'backup --full', maxRetries: 3, timeoutSeconds: 90 });
    const execution = await storedExecution(job);

    const loaded = await executions.findById(execution.id);

    expect(loaded?.toProps()).toEqual(execution.toProps());
    expect(loaded?.toProps()).toMatchObject({
      jobId: job.id,
      command: 'backup --full',
      maxRetries: 3,
      timeoutSeconds: 90,
      status: ExecutionStatus.QUEUED,
      attempt: 1,
      trigger: 'MANUAL',
      version: 1,
    });
  });

  it('finds nothing for an unknown id', async () => {
    await expect(executions.findById(randomUUID())).resolves.toBeNull();
  });

  it('persists a whole legal history, one version per transition', async () => {
    const execution = await storedExecution();
    const copy = async () => (await executions.findById(execution.id))!;

    const first = await copy();
    first.start(at(10));
    await executions.save(first);
    expect(await row(execution.id)).toMatchObject({ status: 'RUNNING', started_at: at(10), version: 2 });

    const second = await copy();
    second.fail(7, 'disk full', at(20));
    await executions.save(second);

    const stored = await copy();
    expect(stored.toProps()).toMatchObject({
      status: ExecutionStatus.FAILED,
      startedAt: at(10),
      finishedAt: at(20),
      exitCode: 7,
      errorMessage: 'disk full',
      version: 3,
    });
  });

  it('a copy that was saved can be saved again: its version moves on with the row', async () => {
    const execution = await storedExecution();
    execution.start(at(1));
    await executions.save(execution);
    execution.succeed(0, at(2));
    await executions.save(execution);

    expect(await row(execution.id)).toMatchObject({ status: 'SUCCEEDED', exit_code: 0, version: 3 });
  });

  it('a stale copy is refused with StaleWriteError and the row keeps the first write', async () => {
    const execution = await storedExecution();
    const first = (await executions.findById(execution.id))!;
    const second = (await executions.findById(execution.id))!;
    first.start(at(5));
    second.cancel(at(6), { by: 'caller', actor: 'test' });

    await executions.save(first);
    await expect(executions.save(second)).rejects.toBeInstanceOf(StaleWriteError);

    expect(await row(execution.id)).toMatchObject({
      status: 'RUNNING',
      started_at: at(5),
      finished_at: null,
      version: 2,
    });
  });

  it('two copies of a RUNNING execution: succeed lands, the stale cancel is refused', async () => {
    const execution = await storedExecution();
    execution.start(at(1));
    await executions.save(execution);
    const first = (await executions.findById(execution.id))!;
    const second = (await executions.findById(execution.id))!;
    first.succeed(0, at(2));
    second.cancel(at(3), { by: 'caller', actor: 'test' });

    await executions.save(first);
    await expect(executions.save(second)).rejects.toBeInstanceOf(StaleWriteError);

    expect(await row(execution.id)).toMatchObject({
      status: 'SUCCEEDED',
      exit_code: 0,
      finished_at: at(2),
      version: 3,
    });
  });

  it('a change made by raw SQL makes the copy read before it stale', async () => {
    const execution = await storedExecution();
    const copy = (await executions.findById(execution.id))!;
    await t.db.sql(
      `UPDATE executions SET status = 'CANCELLED', finished_at = $2, version = version + 1 WHERE id = $1`,
      [execution.id, at(1)],
    );
    copy.start(at(2));

    await expect(executions.save(copy)).rejects.toBeInstanceOf(StaleWriteError);
    expect(await row(execution.id)).toMatchObject({ status: 'CANCELLED', started_at: null });
  });

  it('finds the QUEUED and RUNNING executions of a job, and only those', async () => {
    const job = await storedJob(t);
    const queued = await storedExecution(job);
    const running = await storedExecution(job);
    running.start(at(1));
    await executions.save(running);
    const done = await storedExecution(job);
    done.start(at(1));
    await executions.save(done);
    done.succeed(0, at(2));
    await executions.save(done);
    const cancelled = await storedExecution(job);
    cancelled.cancel(at(1), { by: 'caller', actor: 'test' });
    await executions.save(cancelled);
    await storedExecution(await storedJob(t));

    const active = await executions.findActiveByJob(job.id);

    expect(active.map((e) => e.id).sort()).toEqual([queued.id, running.id].sort());
  });
});

describe('batch writes (the worker cycle)', () => {
  it('saveAll writes each transition on its own version, in one go, and answers the stale ones unwritten', async () => {
    const [a, b, c] = [await storedExecution(), await storedExecution(), await storedExecution()];
    for (const execution of [a, b, c]) execution.start(at(1), 'w1');
    await expect(executions.saveAll([a, b, c], at(31))).resolves.toEqual([]);
    expect(await row(a.id)).toMatchObject({ status: 'RUNNING', worker_id: 'w1', lease_expires_at: at(31), version: 2 });
    // someone cancels b behind the worker's back
    const other = (await executions.findById(b.id))!;
    other.cancel(at(2), { by: 'caller', actor: 'test' });
    await executions.save(other);

    a.succeed(0, at(3));
    b.succeed(0, at(3));
    c.fail(2, 'Command exited with code 2', at(3));
    const stale = await executions.saveAll([a, b, c]);

    expect(stale).toEqual([b]);
    expect(await row(a.id)).toMatchObject({ status: 'SUCCEEDED', exit_code: 0, lease_expires_at: null, version: 3 });
    expect(await row(b.id)).toMatchObject({ status: 'CANCELLED', exit_code: null, version: 3 });
    expect(await row(c.id)).toMatchObject({ status: 'FAILED', exit_code: 2, lease_expires_at: null, version: 3 });
    expect([a.version, b.version, c.version]).toEqual([3, 2, 3]);
  });

  it('insertAll stores every execution as built, and nothing for an empty list', async () => {
    const job = await storedJob(t, { command: 'make all', maxRetries: 2 });
    const batch = [0, 1, 2].map((i) => Execution.forJob(job, at(i), { trigger: 'SCHEDULE', scheduledFor: at(60 + i) }));
    await expect(executions.insertAll([])).resolves.toBe(0);
    await expect(executions.insertAll(batch)).resolves.toBe(3);

    for (const execution of batch) {
      expect((await executions.findById(execution.id))?.toProps()).toEqual(execution.toProps());
    }
  });

  it('applyAll lets the domain decide, writes the rows, queues retries only for failures that landed', async () => {
    const service = t.app.get(ExecutionsService);
    const job = await storedJob(t, { maxRetries: 1 });
    const [ok, failed, raced] = [await storedExecution(job), await storedExecution(job), await storedExecution(job)];
    for (const execution of [ok, failed, raced]) {
      execution.start(at(1), 'w1');
      await executions.save(execution);
    }
    const other = (await executions.findById(raced.id))!;
    other.cancel(at(2), { by: 'caller', actor: 'test' });
    await executions.save(other);

    const stale = await service.applyAll([
      { execution: ok, action: (e, now) => e.succeed(0, now) },
      { execution: failed, action: (e, now) => e.fail(1, 'Command exited with code 1', now) },
      { execution: raced, action: (e, now) => e.fail(1, 'Command exited with code 1', now) },
    ]);

    expect(stale).toEqual([raced]);
    const { rows } = await t.db.sql(
      `SELECT retry_of, attempt, status FROM executions WHERE retry_of = ANY($1::uuid[])`,
      [[ok.id, failed.id, raced.id]],
    );
    expect(rows).toEqual([{ retry_of: failed.id, attempt: 2, status: 'QUEUED' }]);
  });

  it('applyAll writes started runs in the same statement, with their lease; one changed since its claim throws', async () => {
    const service = t.app.get(ExecutionsService);
    const [running, claimed, lost] = [await storedExecution(), await storedExecution(), await storedExecution()];
    running.start(at(1), 'w1');
    await executions.save(running);
    const lease = at(90);
    claimed.start(at(2), 'w1');
    const stale = await service.applyAll([{ execution: running, action: (e, now) => e.succeed(0, now) }], {
      executions: [claimed],
      leaseExpiresAt: lease,
    });
    expect(stale).toEqual([]);
    expect(await row(running.id)).toMatchObject({ status: 'SUCCEEDED', version: 3 });
    expect(await row(claimed.id)).toMatchObject({ status: 'RUNNING', version: 2, lease_expires_at: lease });

    const other = (await executions.findById(lost.id))!;
    other.cancel(at(3), { by: 'caller', actor: 'test' });
    await executions.save(other);
    lost.start(at(4), 'w1');
    await expect(service.applyAll([], { executions: [lost], leaseExpiresAt: lease })).rejects.toThrow(
      `Execution ${lost.id} was changed while being claimed`,
    );
  });

  it('applyAll throws the domain refusal before writing anything', async () => {
    const service = t.app.get(ExecutionsService);
    const [running, queued] = [await storedExecution(), await storedExecution()];
    running.start(at(1), 'w1');
    await executions.save(running);

    await expect(
      service.applyAll([
        { execution: running, action: (e, now) => e.succeed(0, now) },
        { execution: queued, action: (e, now) => e.succeed(0, now) },
      ]),
    ).rejects.toThrow('Only running executions can succeed');
    expect(await row(running.id)).toMatchObject({ status: 'RUNNING', version: 2 });
  });
});

describe('ExecutionOutputRepository', () => {
  it('stores snapshots in one go, needs no row for an empty output, and never lets an older snapshot win', async () => {
    const outputs = t.app.get(ExecutionOutputRepository);
    const [quiet, chatty] = [await storedExecution(), await storedExecution()];
    const empty = { stdout: '', stderr: '', truncated: false };

    await outputs.saveAll(
      [
        { executionId: quiet.id, output: empty },
        { executionId: chatty.id, output: { stdout: 'final', stderr: 'warn', truncated: true } },
      ],
      at(10),
    );
    await outputs.saveAll(
      [{ executionId: chatty.id, output: { stdout: 'earlier', stderr: '', truncated: false } }],
      at(9),
    );

    const { rows } = await t.db.sql('SELECT execution_id FROM execution_outputs WHERE execution_id = ANY($1::uuid[])', [
      [quiet.id, chatty.id],
    ]);
    expect(rows.map((r: { execution_id: string }) => r.execution_id)).toEqual([chatty.id]);
    await expect(outputs.find(chatty.id)).resolves.toEqual({ stdout: 'final', stderr: 'warn', truncated: true });
    await expect(outputs.find(quiet.id)).resolves.toBeNull();
  });
});

describe('JobRepository', () => {
  async function jobRow(id: string): Promise<Record<string, unknown>> {
    const { rows } = await t.db.sql('SELECT * FROM jobs WHERE id = $1', [id]);
    expect(rows).toHaveLength(1);
    return rows[0] as Record<string, unknown>;
  }

  it('reads back exactly what was inserted', async () => {
    const job = await storedJob(t, { timezone: 'Europe/Berlin', cronExpression: '0 9 * * *', enabled: false });
    const loaded = await jobs.findById(job.id);
    expect(loaded?.toProps()).toEqual(job.toProps());
  });

  it('a stale copy is refused with StaleWriteError and the row keeps the first write', async () => {
    const job = await storedJob(t);
    const first = (await jobs.findById(job.id))!;
    const second = (await jobs.findById(job.id))!;
    first.update({ command: 'echo first' }, at(10));
    second.update({ command: 'echo second', maxRetries: 5 }, at(11));

    await jobs.update(first);
    await expect(jobs.update(second)).rejects.toBeInstanceOf(StaleWriteError);

    expect(await jobRow(job.id)).toMatchObject({
      command: 'echo first',
      max_retries: 0,
      updated_at: at(10),
      version: 2,
    });
  });

  it('a copy that was updated can be updated again: its version moves on with the row', async () => {
    const job = await storedJob(t);
    job.update({ command: 'echo one' }, at(1));
    await jobs.update(job);
    job.update({ command: 'echo two' }, at(2));
    await jobs.update(job);

    expect(await jobRow(job.id)).toMatchObject({ command: 'echo two', version: 3 });
  });

  it('a second job with a live name is refused with ConflictError', async () => {
    const job = await storedJob(t);
    const twin = Job.create({ name: job.name, command: 'echo twin', cronExpression: '@daily' }, T0);
    await expect(jobs.insert(twin)).rejects.toBeInstanceOf(ConflictError);
    await expect(jobs.findById(twin.id)).resolves.toBeNull();
  });

  it('renaming a job onto a live name is refused with ConflictError, not a stale write', async () => {
    const job = await storedJob(t);
    const other = await storedJob(t);
    other.update({ name: job.name }, at(1));
    const refusal = jobs.update(other);
    await expect(refusal).rejects.toBeInstanceOf(ConflictError);
    await expect(refusal).rejects.not.toBeInstanceOf(StaleWriteError);
  });

  it('a deleted job is gone for reads and updates, its name is free again, its row and executions stay', async () => {
    const job = await storedJob(t);
    const execution = await storedExecution(job);
    const stale = (await jobs.findById(job.id))!;

    await jobs.markDeleted(job, at(30));

    await expect(jobs.findById(job.id)).resolves.toBeNull();
    stale.update({ command: 'echo late' }, at(31));
    await expect(jobs.update(stale)).rejects.toBeInstanceOf(StaleWriteError);
    expect(await jobRow(job.id)).toMatchObject({ deleted_at: at(30), enabled: false, next_run_at: null });
    await expect(executions.findById(execution.id)).resolves.not.toBeNull();

    const reuse = Job.create({ name: job.name, command: 'echo again', cronExpression: '@hourly' }, at(32));
    await expect(jobs.insert(reuse)).resolves.toBeUndefined();
  });
});
