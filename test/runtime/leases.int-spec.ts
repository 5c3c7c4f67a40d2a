import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import request from 'supertest';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { ExecutionsService } from '../../src/executions/application/executions.service.js';
import { Execution } from '../../src/executions/domain/execution.js';
import { ExecutionStatus, isFinal } from '../../src/executions/domain/execution-status.js';
import { Job } from '../../src/jobs/domain/job.js';
import { LeaseReaperService } from '../../src/runtime/application/lease-reaper.service.js';
import { WorkerService } from '../../src/runtime/application/worker.service.js';
import { TransactionRunner } from '../../src/shared/application/transaction-runner.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, storedJob } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';
import { isAlive, waitFor } from '../support/wait.js';

const T0 = new Date('2026-11-30T10:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const SPAWNER = fileURLToPath(new URL('../../src/runtime/infrastructure/spawner.cjs', import.meta.url));

/** What /proc says of these processes, for a failure message. */
function processStates(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ').slice(0, 5).join(' ');
      } catch {
        return `${pid}: gone`;
      }
    })
    .join('\n');
}

let jobCount = 0;
const jobName = () => `lease-job-${process.pid}-${++jobCount}`;

describe('the lease reaper (clock driven, no loops running)', () => {
  let t: TestApp;
  let clock: FakeClock;
  let executions: ExecutionsService;
  let repository: ExecutionRepository;
  let reaper: LeaseReaperService;

  beforeEach(async () => {
    clock = new FakeClock(T0);
    t = await createTestApp({
      role: 'all',
      init: false,
      clock,
      env: { ORBIT_RETRY_BACKOFF_BASE_MS: '1000', ORBIT_RETRY_BACKOFF_MAX_MS: '60000' },
    });
    executions = t.app.get(ExecutionsService);
    repository = t.app.get(ExecutionRepository);
    reaper = t.app.get(LeaseReaperService);
  });

  afterEach(async () => {
    await t?.close();
  });

  /** Claims the job's queued execution exactly as a worker does, for a worker that then vanishes. */
  async function claimedByDeadWorker(job: Job): Promise<Execution> {
    const queued = await executions.create(job.id);
    const now = clock.now();
    const claimed = await t.app.get(TransactionRunner).run(async () => {
      const due = await repository.lockDue(now, 1, { id: 'dead-worker', labels: {} });
      for (const execution of due) execution.start(now, 'dead-worker');
      await executions.applyAll([], { executions: due, leaseExpiresAt: new Date(now.getTime() + 5000) });
      return due;
    });
    expect(claimed.map((e) => e.id)).toEqual([queued.id]);
    const stored = await executions.get(queued.id);
    expect(stored.toProps()).toMatchObject({ status: 'RUNNING', workerId: 'dead-worker' });
    return stored;
  }

  async function executionsOf(jobId: string): Promise<Execution[]> {
    return loadExecutionsOf(t, executions, jobId);
  }

  it('a heartbeat never waits for a row another transaction holds: it reports it held and renews the rest', async () => {
    const job = await storedJob(t, { command: 'sleep 1000' });
    const held = await claimedByDeadWorker(job);
    const free = await claimedByDeadWorker(job);
    const lease = at(60_000);
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM executions WHERE id = $1 FOR UPDATE', [held.id]);
      let timer: NodeJS.Timeout | undefined;
      const renewal = await Promise.race([
        repository.renewLeases('dead-worker', [held.id, free.id, randomUUID()], lease),
        new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting after 3 s'), 3000))),
      ]);
      clearTimeout(timer);
      expect(renewal).toEqual({ renewed: [free.id], held: [held.id] });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const { rows } = await t.db.sql('SELECT id, lease_expires_at FROM executions WHERE id = ANY($1)', [
      [held.id, free.id],
    ]);
    const leases = Object.fromEntries(
      rows.map((row: { id: string; lease_expires_at: Date }) => [row.id, row.lease_expires_at]),
    );
    expect(leases[free.id]).toEqual(lease);
    expect(leases[held.id]).not.toEqual(lease);
    // another worker's execution is neither renewed nor reported held
    await expect(repository.renewLeases('another-worker', [free.id], at(90_000))).resolves.toEqual({
      renewed: [],
      held: [],
    });
  });

  it("fails a dead worker's execution once its lease expired, and queues its retry after the backoff", async () => {
    const job = await storedJob(t, { command: 'sleep 1000', maxRetries: 1 });
    const execution = await claimedByDeadWorker(job);

    clock.set(at(4000));
    expect(await reaper.sweep(clock.now())).toBe(0);
    expect((await executions.get(execution.id)).toProps()).toMatchObject({
      status: 'RUNNING',
      workerId: 'dead-worker',
    });
    expect(await executionsOf(job.id)).toHaveLength(1);

    clock.set(at(6000));
    expect(await reaper.sweep(clock.now())).toBe(1);
    const failed = (await executions.get(execution.id)).toProps();
    expect(failed).toMatchObject({
      status: 'FAILED',
      exitCode: -1,
      errorMessage: 'Worker lost: lease expired',
      workerId: 'dead-worker',
    });
    expect(failed.finishedAt).toEqual(at(6000));
    const { rows } = await t.db.sql('SELECT lease_expires_at FROM executions WHERE id = $1', [execution.id]);
    expect(rows[0].lease_expires_at).toBeNull();

    const all = await executionsOf(job.id);
    expect(all).toHaveLength(2);
    const retry = all.find((e) => e.id !== execution.id)!.toProps();
    expect(retry).toMatchObject({
      status: 'QUEUED',
      trigger: 'RETRY',
      attempt: 2,
      retryOf: execution.id,
      workerId: null,
      startedAt: null,
    });
    // base 1000 ms for the first retry, half of it random
    const delay = retry.dueAt.getTime() - failed.finishedAt!.getTime();
    expect(delay).toBeGreaterThanOrEqual(500);
    expect(delay).toBeLessThanOrEqual(1000);

    // a later sweep finds nothing more: the failure is not repeated, the retry is not touched
    clock.set(at(60_000));
    expect(await reaper.sweep(clock.now())).toBe(0);
    expect(await executionsOf(job.id)).toHaveLength(2);
    expect((await executions.get(retry.id)).status).toBe('QUEUED');
  });

  it('with maxRetries 0 an expired lease fails the execution and queues no retry', async () => {
    const job = await storedJob(t, { command: 'sleep 1000', maxRetries: 0 });
    const execution = await claimedByDeadWorker(job);

    clock.set(at(4000));
    expect(await reaper.sweep(clock.now())).toBe(0);
    clock.set(at(6000));
    expect(await reaper.sweep(clock.now())).toBe(1);

    expect((await executions.get(execution.id)).toProps()).toMatchObject({
      status: 'FAILED',
      exitCode: -1,
      errorMessage: 'Worker lost: lease expired',
    });
    expect(await executionsOf(job.id)).toHaveLength(1);
  });

  it("holds an outside runner to its execution's timeout", async () => {
    const job = await storedJob(t, { command: 'sleep 1000', timeoutSeconds: 2, maxRetries: 0 });
    const queued = await executions.create(job.id);
    const started = await executions.start(queued.id);
    expect(started.toProps()).toMatchObject({ status: 'RUNNING', workerId: null });
    expect(started.startedAt).toEqual(T0);

    clock.set(at(1000));
    expect(await reaper.sweep(clock.now())).toBe(0);
    expect((await executions.get(queued.id)).status).toBe('RUNNING');

    clock.set(at(3000));
    expect(await reaper.sweep(clock.now())).toBe(1);
    const failed = (await executions.get(queued.id)).toProps();
    expect(failed).toMatchObject({ status: 'FAILED', exitCode: 124, errorMessage: 'Timed out after 2 seconds' });
    expect(failed.finishedAt).toEqual(at(3000));
    expect(await executionsOf(job.id)).toHaveLength(1);
  });
});

describe('leases on real nodes', () => {
  let workDir: string;

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'orbit-leases-'));
  });

  afterAll(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('a lease the heartbeat renews does not expire: a command longer than the lease succeeds', async () => {
    const t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_LEASE_SECONDS: '3',
        ORBIT_HEARTBEAT_SECONDS: '1',
        ORBIT_POLL_INTERVAL_MS: '200',
        ORBIT_WORK_DIR: workDir,
      },
    });
    try {
      const http = () => request(t.app.getHttpServer());
      const job = await createJob(t, { command: 'sleep 6', maxRetries: 1 });
      const queued = await http().post(`/jobs/${job.id}/executions`).expect(201);
      const id = queued.body.id as string;

      // followed in the database until it ends: how far beyond its start the lease ever reached
      let furthestLeaseMs = 0;
      const done = await waitFor(
        async () => {
          const { rows } = await t.db.sql(
            'SELECT status, started_at, finished_at, lease_expires_at, exit_code, error_message FROM executions WHERE id = $1',
            [id],
          );
          const row = rows[0];
          if (row?.lease_expires_at && row.started_at) {
            furthestLeaseMs = Math.max(furthestLeaseMs, row.lease_expires_at.getTime() - row.started_at.getTime());
          }
          return row && isFinal(row.status) ? row : undefined;
        },
        'the command to finish',
        15_000,
      );
      expect({ status: done.status, exitCode: done.exit_code, errorMessage: done.error_message }).toEqual({
        status: 'SUCCEEDED',
        exitCode: 0,
        errorMessage: null,
      });
      expect(done.finished_at.getTime() - done.started_at.getTime()).toBeGreaterThanOrEqual(5500);
      // a claim leases 3 s; the heartbeats carried it to the end of the 6 s command
      expect(furthestLeaseMs).toBeGreaterThan(5000);
      const { body } = await http().get(`/executions?jobId=${job.id}`).expect(200);
      expect(body.items).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('a worker whose running row another transaction holds stops the command before its lease can lapse', async () => {
    const t = await createTestApp({
      role: 'all',
      env: {
        ORBIT_LEASE_SECONDS: '6',
        ORBIT_HEARTBEAT_SECONDS: '2',
        ORBIT_POLL_INTERVAL_MS: '200',
        ORBIT_WORK_DIR: workDir,
      },
    });
    const holder = new pg.Client({ connectionString: t.db.url });
    await holder.connect();
    try {
      const http = () => request(t.app.getHttpServer());
      const name = jobName();
      // in the work dir, which Orbit gives to the user commands run as
      const pidFile = join(workDir, `${name}.pid`);
      const job = await createJob(t, { name, command: `echo $$ > ${pidFile}; exec sleep 60` });
      const { body } = await http().post(`/jobs/${job.id}/executions`).expect(201);
      const pid = await waitFor(
        () =>
          existsSync(pidFile) && /^\d+\n/.test(readFileSync(pidFile, 'utf8'))
            ? Number(readFileSync(pidFile, 'utf8'))
            : undefined,
        'the command to start',
        10_000,
      );

      // the heartbeat skips a row it cannot lock, so this lease is renewed no more
      await holder.query('BEGIN');
      const { rows } = await holder.query(`SELECT lease_expires_at FROM executions WHERE id = $1 FOR UPDATE`, [
        body.id,
      ]);
      const leaseEnd = (rows[0] as { lease_expires_at: Date }).lease_expires_at.getTime();
      await waitFor(() => !isAlive(pid) || undefined, 'the worker to stop the command', 8_000);
      // a lapsed lease lets another node fail the run and start its retry: the command was gone first
      expect(Date.now()).toBeLessThan(leaseEnd);
      await holder.query('ROLLBACK');

      const ended = await waitFor(
        async () => {
          const { rows: now } = await t.db.sql('SELECT status FROM executions WHERE id = $1', [body.id]);
          return now[0]?.status === 'RUNNING' ? undefined : (now[0]?.status as string);
        },
        'the worker to record the stopped run',
        10_000,
      );
      expect(ended).not.toBe('SUCCEEDED');
    } finally {
      await holder.end();
      await t.close();
    }
  });

  it("a worker killed with SIGKILL takes its commands' process groups with it", async () => {
    const dir = mkdtempSync(join(workDir, 'kill9-'));
    const pidFile = join(dir, 'pids');
    const script = `
      const { fork } = require('node:child_process');
      const spawner = fork(${JSON.stringify(SPAWNER)}, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      spawner.send(${JSON.stringify([
        {
          type: 'run',
          id: 'x',
          command: `echo $$ > ${pidFile}; sleep 1000 & echo $! >> ${pidFile}; wait`,
          cwd: dir,
          env: { PATH: process.env.PATH },
          timeoutMs: 600_000,
          killGraceMs: 1000,
          outputLimitBytes: 65536,
        },
      ])});
      process.stdout.write(spawner.pid + '\\n');
      setInterval(() => undefined, 60000);
    `;
    const worker: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const workerExited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    let stdout = '';
    worker.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    let pids: number[] = [];
    let spawnerPid: number | undefined;
    try {
      spawnerPid = await waitFor(
        () => (/^\d+\n/.test(stdout) ? Number(stdout.trim().split('\n')[0]) : undefined),
        'the spawner pid',
        10_000,
      );
      pids = await waitFor(
        () => {
          if (!existsSync(pidFile)) return undefined;
          const found = readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean).map(Number);
          return found.length === 2 && found.every((pid) => pid > 0 && isAlive(pid)) ? found : undefined;
        },
        'the shell and its background sleep to run',
        10_000,
      );

      worker.kill('SIGKILL');
      await workerExited;

      const all = [...pids, spawnerPid];
      await waitFor(
        () => (pids.every((pid) => !isAlive(pid)) ? true : undefined),
        `the command's processes ${pids.join(', ')} to die with their worker`,
        5000,
      ).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${processStates(all)}`)));
      await waitFor(() => (!isAlive(spawnerPid!) ? true : undefined), 'the spawner to exit', 5000).catch(
        (error: Error) => Promise.reject(new Error(`${error.message}\n${processStates(all)}`)),
      );
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
      // only what survived a failed test: the command's group, then the spawner
      const kill = (pid: number) => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      };
      if (pids[0] !== undefined && isAlive(pids[0])) kill(-pids[0]);
      for (const pid of [...pids, spawnerPid ?? 0]) if (pid > 0 && isAlive(pid)) kill(pid);
    }
  });

  it("another node's reaper fails a vanished worker's execution and its worker runs the retry", async () => {
    const db = await createTestDatabase();
    // node A: the node whose worker vanished, nothing of it runs; node B: a live node
    const a = await createTestApp({ role: 'all', init: false, db });
    let b: TestApp | undefined;
    try {
      b = await createTestApp({
        role: 'all',
        db,
        env: {
          ORBIT_LEASE_SECONDS: '3',
          ORBIT_HEARTBEAT_SECONDS: '1',
          ORBIT_RETRY_BACKOFF_BASE_MS: '100',
          ORBIT_POLL_INTERVAL_MS: '200',
          ORBIT_WORK_DIR: workDir,
        },
      });
      const job = await storedJob(a, { command: 'true', maxRetries: 1 });

      // queued and claimed in one transaction, so node B's worker never sees it QUEUED
      const repository = a.app.get(ExecutionRepository);
      const ghost = await a.app.get(TransactionRunner).run(async () => {
        const now = new Date();
        await repository.insert(Execution.forJob(job, now));
        const due = await repository.lockDue(now, 1, { id: 'dead-worker', labels: {} });
        expect(due).toHaveLength(1);
        for (const execution of due) execution.start(now, 'ghost');
        await a.app
          .get(ExecutionsService)
          .applyAll([], { executions: due, leaseExpiresAt: new Date(now.getTime() - 1000) });
        return due[0]!;
      });

      const executions = a.app.get(ExecutionsService);
      const failed = await waitFor(
        async () => {
          const e = await executions.get(ghost.id);
          return e.status === ExecutionStatus.RUNNING ? undefined : e.toProps();
        },
        "the ghost's execution to be reaped",
        10_000,
      );
      expect(failed).toMatchObject({
        status: 'FAILED',
        exitCode: -1,
        errorMessage: 'Worker lost: lease expired',
        workerId: 'ghost',
      });

      const retry = await waitFor(
        async () => {
          const items = await loadExecutionsOf(a, executions, job.id);
          const found = items.find((e) => e.toProps().retryOf === ghost.id);
          return found && found.status !== ExecutionStatus.QUEUED && found.status !== ExecutionStatus.RUNNING
            ? found.toProps()
            : undefined;
        },
        'the retry to run on node B',
        10_000,
      );
      expect(retry).toMatchObject({
        status: 'SUCCEEDED',
        exitCode: 0,
        attempt: 2,
        trigger: 'RETRY',
        workerId: b.app.get(WorkerService).id,
      });
      const { rows } = await db.sql('SELECT count(*)::int AS n FROM executions WHERE job_id = $1', [job.id]);
      expect(rows[0].n).toBe(2);
    } finally {
      await b?.close();
      await a.close();
      await db.drop();
    }
  });
});

/** The executions of a job as domain objects, oldest first. */
async function loadExecutionsOf(app: TestApp, executions: ExecutionsService, jobId: string): Promise<Execution[]> {
  const { rows } = await app.db.sql('SELECT id FROM executions WHERE job_id = $1 ORDER BY created_at, id', [jobId]);
  return Promise.all(rows.map((row: { id: string }) => executions.get(row.id)));
}
