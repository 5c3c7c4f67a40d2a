import { jest } from '@jest/globals';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { ExecutionStatus } from '../../src/executions/domain/execution-status.js';
import { Database } from '../../src/shared/infrastructure/database.js';
import type { Schema } from '../support/api-types.js';
import { createJob, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { finalExecution, isAlive, waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;

describe('worker runs commands as real processes', () => {
  let t: TestApp;
  const workDir = join(tmpdir(), `orbit-worker-test-${process.pid}`);
  const http = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    process.env.ORBIT_TEST_SECRET = 'must-not-leak';
    t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_WORK_DIR: workDir,
        ORBIT_WORKER_CONCURRENCY: '8',
        ORBIT_OUTPUT_LIMIT_KB: '4',
        ORBIT_KILL_GRACE_SECONDS: '1',
        ORBIT_RETRY_BACKOFF_BASE_MS: '200',
        ORBIT_RETRY_BACKOFF_MAX_MS: '400',
        ORBIT_POLL_INTERVAL_MS: '200',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function run(command: string, job: JobFields = {}): Promise<Execution> {
    const created = await createJob(t, { command, ...job });
    const execution = await http().post(`/jobs/${created.id}/executions`).expect(201);
    return execution.body as Execution;
  }

  const settled = (id: string): Promise<Execution> => finalExecution((path) => http().get(path), id);

  async function running(id: string): Promise<Execution> {
    return waitFor(async () => {
      const { body } = await http().get(`/executions/${id}`);
      return body.status === 'RUNNING' ? (body as Execution) : undefined;
    }, `execution ${id} to run`);
  }

  it('exit code 0 succeeds, with the worker id and its output recorded', async () => {
    const queued = await run('echo hello; echo oops >&2');
    const done = await settled(queued.id);
    expect(done).toMatchObject({ status: 'SUCCEEDED', exitCode: 0, errorMessage: null });
    expect(done.workerId).toEqual(expect.any(String));
    const output = await http().get(`/executions/${queued.id}/output`).expect(200);
    expect(output.body).toEqual({ stdout: 'hello\n', stderr: 'oops\n', truncated: false });
  });

  it('a non-zero exit code fails with the code in the message', async () => {
    const done = await settled((await run('exit 3')).id);
    expect(done).toMatchObject({ status: 'FAILED', exitCode: 3, errorMessage: 'Command exited with code 3' });
  });

  it('a command killed by a signal fails naming the signal', async () => {
    const done = await settled((await run('kill -9 $$')).id);
    expect(done).toMatchObject({
      status: 'FAILED',
      exitCode: 137,
      errorMessage: 'Command was killed by signal SIGKILL',
    });
  });

  it('runs in the configured working directory with a minimal environment and no server secret', async () => {
    const queued = await run('pwd; env');
    await settled(queued.id);
    const { body } = await http().get(`/executions/${queued.id}/output`).expect(200);
    const [cwd, ...env] = (body.stdout as string).trim().split('\n');
    expect(cwd).toBe(workDir);
    expect(env).toEqual(
      expect.arrayContaining([`ORBIT_EXECUTION_ID=${queued.id}`, `ORBIT_JOB_ID=${queued.jobId}`, 'ORBIT_ATTEMPT=1']),
    );
    expect(body.stdout).not.toContain('must-not-leak');
    expect(body.stdout).not.toContain('DATABASE_URL');
    expect(body.stdout).not.toContain(t.db.url);
  });

  it('keeps only the last ORBIT_OUTPUT_LIMIT_KB of a command that prints a lot', async () => {
    const queued = await run('head -c 3000000 /dev/zero | tr "\\0" a; echo END');
    expect((await settled(queued.id)).status).toBe('SUCCEEDED');
    const { body } = await http().get(`/executions/${queued.id}/output`).expect(200);
    expect(body.truncated).toBe(true);
    expect(body.stdout.length).toBe(4096);
    expect(body.stdout.endsWith('aaaEND\n')).toBe(true);
  });

  it('shows the output of a running command while it runs', async () => {
    const queued = await run('echo started; sleep 30');
    const seen = await waitFor(async () => {
      const { body } = await http().get(`/executions/${queued.id}/output`);
      return body.stdout === 'started\n' ? (body as Schema<'ExecutionOutputResponse'>) : undefined;
    }, 'live output');
    expect(seen.truncated).toBe(false);
    await http().post(`/executions/${queued.id}/cancel`).expect(200);
    await settled(queued.id);
  });

  it('what a command leaves running in its process group is stopped after it exits, even what ignores SIGTERM', async () => {
    const pids = join(workDir, 'left-behind.pids');
    const done = await settled(
      (await run(`sleep 600 & echo $! > ${pids}; (trap '' TERM; exec sleep 600) & echo $! >> ${pids}; exit 0`)).id,
    );
    expect(done).toMatchObject({ status: 'SUCCEEDED', exitCode: 0 });
    const [polite, stubborn] = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(polite).toBeGreaterThan(0);
    expect(stubborn).toBeGreaterThan(0);
    // SIGTERM at once, SIGKILL after ORBIT_KILL_GRACE_SECONDS (1 s)
    await waitFor(() => (!isAlive(polite!) && !isAlive(stubborn!) ? true : undefined), 'the leftovers to die', 5000);
  });

  it('a timeout kills the whole process group, grandchildren included', async () => {
    const pidFile = join(workDir, 'grandchild.pid');
    const queued = await run(`sleep 1000 & echo $! > ${pidFile}; sleep 1000`, { timeoutSeconds: 1 });
    const done = await settled(queued.id);
    expect(done).toMatchObject({ status: 'FAILED', exitCode: 124, errorMessage: 'Timed out after 1 seconds' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => (isAlive(grandchild) ? undefined : true), 'the grandchild to die', 5000);
  });

  it('cancel of a running command stops it, and the execution stays CANCELLED', async () => {
    const pidFile = join(workDir, 'cancelled.pid');
    const queued = await run(`echo $$ > ${pidFile}; sleep 1000`);
    await running(queued.id);
    await waitFor(() => (existsSync(pidFile) ? true : undefined), 'the pid file');
    const shell = Number(readFileSync(pidFile, 'utf8'));
    const cancelled = await http().post(`/executions/${queued.id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    await waitFor(() => (isAlive(shell) ? undefined : true), 'the cancelled command to die', 5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await http().get(`/executions/${queued.id}`).expect(200);
    expect(after.body).toMatchObject({ status: 'CANCELLED', exitCode: null, errorMessage: null });
  });

  it('retries a failure as new attempts with backoff until maxRetries is used up', async () => {
    const first = await run('exit 1', { maxRetries: 2 });
    const chain: Execution[] = [await settled(first.id)];
    for (let attempt = 2; attempt <= 3; attempt++) {
      const previous = chain[chain.length - 1]!;
      const retry = await waitFor(async () => {
        const { body } = await http().get(`/executions?jobId=${first.jobId}&limit=100`);
        return (body as Schema<'ExecutionPageResponse'>).items.find((e) => e.retryOf === previous.id);
      }, `attempt ${attempt}`);
      expect(retry).toMatchObject({ trigger: 'RETRY', attempt, command: 'exit 1', maxRetries: 2 });
      // backoff: base 200 ms doubled per attempt, capped at 400 ms, half of it random
      const delay = Date.parse(retry.dueAt) - Date.parse(previous.finishedAt!);
      const exponential = Math.min(400, 200 * 2 ** (attempt - 2));
      expect(delay).toBeGreaterThanOrEqual(exponential / 2 - 5);
      expect(delay).toBeLessThanOrEqual(exponential + 5);
      const done = await settled(retry.id);
      expect(Date.parse(done.startedAt!)).toBeGreaterThanOrEqual(Date.parse(retry.dueAt));
      chain.push(done);
    }
    expect(chain.map((e) => e.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const { body } = await http().get(`/executions?jobId=${first.jobId}&limit=100`);
    expect(body.items).toHaveLength(3);
  });

  it('a cancelled execution is not retried', async () => {
    const queued = await run('sleep 1000', { maxRetries: 3 });
    await running(queued.id);
    await http().post(`/executions/${queued.id}/cancel`).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const { body } = await http().get(`/executions?jobId=${queued.jobId}`);
    expect(body.items).toHaveLength(1);
  });
});

describe('a worker whose commands keep ending and starting', () => {
  const CONCURRENCY = 3;
  const RUNS = 40;
  const dir = join(tmpdir(), `orbit-slots-test-${process.pid}`);
  let t: TestApp;

  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    t = await createTestApp({
      role: 'all',
      env: { ORBIT_WORK_DIR: join(dir, 'work'), ORBIT_WORKER_CONCURRENCY: String(CONCURRENCY) },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('never runs more commands at once than its concurrency, though two cycles claim side by side', async () => {
    // each command counts the commands inside (itself included) as it enters; in the work dir,
    // which Orbit gives to the user commands run as
    const inside = join(dir, 'work', 'inside');
    const counts = join(dir, 'work', 'counts');
    const command =
      `mkdir -p ${inside} && mkdir ${inside}/$ORBIT_EXECUTION_ID && ls ${inside} | wc -l >> ${counts}; ` +
      `sleep 0.05; rmdir ${inside}/$ORBIT_EXECUTION_ID`;
    const http = () => request(t.app.getHttpServer());
    const job = await http().post('/jobs').send({ name: 'slots', command, cronExpression: '0 0 1 1 *' }).expect(201);
    // batches of queued runs, each its own commit: their notifications wake the worker while it claims
    for (let batch = 0; batch < RUNS / 5; batch++) {
      await t.db.sql(
        `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
         SELECT gen_random_uuid(), $1, $2, 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(1, 5)`,
        [job.body.id, command],
      );
    }
    const items = await waitFor(
      async () => {
        const { body } = await http().get(`/executions?jobId=${job.body.id}&limit=100`);
        const all = (body as Schema<'ExecutionPageResponse'>).items;
        return all.every((e) => e.status === 'SUCCEEDED') && all.length === RUNS ? all : undefined;
      },
      `${RUNS} runs to succeed`,
      30_000,
    );
    expect(items).toHaveLength(RUNS);
    const seen = readFileSync(counts, 'utf8').trim().split('\n').map(Number);
    expect(seen).toHaveLength(RUNS);
    expect(Math.max(...seen)).toBe(CONCURRENCY);
  });
});

describe('what a worker cycle writes', () => {
  const dir = join(tmpdir(), `orbit-cycle-writes-test-${process.pid}`);
  let t: TestApp;
  let saves: ExecutionStatus[][];

  beforeAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    t = await createTestApp({
      role: 'all',
      // no poll comes within the tests: a run starts when the worker's own cycle claims it
      env: { ORBIT_WORK_DIR: dir, ORBIT_WORKER_CONCURRENCY: '3', ORBIT_POLL_INTERVAL_MS: '600000' },
    });
    const repository = t.app.get(ExecutionRepository);
    const saveAll = repository.saveAll.bind(repository);
    jest.spyOn(repository, 'saveAll').mockImplementation((executions, lease) => {
      saves.push(executions.map((execution) => execution.status));
      return saveAll(executions, lease);
    });
  });
  beforeEach(() => (saves = []));
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runAll(fields: JobFields, count: number): Promise<void> {
    const job = await createJob(t, { command: 'sleep 0.05', ...fields });
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, max_concurrent, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, command, 0, 60, max_concurrent, 'QUEUED', 1, 'MANUAL', now(), now()
         FROM jobs, generate_series(1, $2) WHERE id = $1`,
      [job.id, count],
    );
    await waitFor(async () => {
      const { rows } = await t.db.sql(
        `SELECT count(*)::int AS left FROM executions WHERE job_id = $1 AND status <> 'SUCCEEDED'`,
        [job.id],
      );
      return rows[0].left === 0 ? true : undefined;
    }, `${count} runs to succeed`);
  }

  it('saves the runs it ends and the runs it starts in one statement', async () => {
    await runAll({}, 9);
    const ended = (statuses: ExecutionStatus[]) => statuses.includes(ExecutionStatus.SUCCEEDED);
    const started = (statuses: ExecutionStatus[]) => statuses.includes(ExecutionStatus.RUNNING);
    expect(saves.some((statuses) => ended(statuses) && started(statuses))).toBe(true);
  });

  it("writes a limited lane's ended runs before its claim counts the lane, so the next run starts in that cycle", async () => {
    // with the ended run counted as running, the claim would find the lane full, and the next
    // run would wait for a poll that comes after the test's timeout
    await runAll({ maxConcurrent: 1 }, 3);
    expect(saves.length).toBeGreaterThan(0);
    for (const statuses of saves)
      expect(statuses.includes(ExecutionStatus.SUCCEEDED) && statuses.includes(ExecutionStatus.RUNNING)).toBe(false);
  });
});

describe('a node on a small connection pool', () => {
  const POOL = 4;
  const RUNS = 60;
  const dir = join(tmpdir(), `orbit-pool-test-${process.pid}`);
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_DB_POOL_SIZE: String(POOL),
        ORBIT_WORKER_CONCURRENCY: '8',
        ORBIT_WORK_DIR: dir,
        ORBIT_POLL_INTERVAL_MS: '200',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const openConnections = async (): Promise<number> => {
    const { rows } = await t.db.sql(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'orbit'`,
    );
    return rows[0].n as number;
  };

  it(`runs a burst at concurrency 8, and twenty statements at once open no more than ${POOL} connections`, async () => {
    const http = () => request(t.app.getHttpServer());
    const job = await http().post('/jobs').send({ name: 'pool', command: 'true', cronExpression: '0 0 1 1 *' });
    await t.db.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, 'true', 0, 60, 'QUEUED', 1, 'MANUAL', now(), now() FROM generate_series(1, $2)`,
      [job.body.id, RUNS],
    );
    await waitFor(
      async () => {
        const { rows } = await t.db.sql(`SELECT count(*)::int AS n FROM executions WHERE status = 'SUCCEEDED'`);
        return rows[0].n === RUNS || undefined;
      },
      `${RUNS} runs to succeed`,
      30_000,
    );

    // twenty statements at once: each would open a connection of its own if the pool allowed it
    const db = t.app.get(Database);
    const sleeping = Array.from({ length: 20 }, () => db.rows('SELECT pg_sleep(0.2)'));
    let most = 0;
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      most = Math.max(most, await openConnections());
    }
    await Promise.all(sleeping);
    expect(most).toBe(POOL);
  });
});
