import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Schema } from '../support/api-types.js';
import { createJob, type JobFields } from '../support/jobs.js';
import { createTestApp, TestApp } from '../support/test-app.js';
import { createTestDatabase, TestDatabase } from '../support/test-database.js';
import { isAlive, waitFor } from '../support/wait.js';

type Execution = Schema<'ExecutionResponse'>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are loosely typed
type Row = Record<string, any>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'orbit-shutdown-'));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

/** A node on its own database, which outlives the node so the test can read it after close. */
async function node(db: TestDatabase, env: Record<string, string>, role: 'all' | 'api' = 'all'): Promise<TestApp> {
  return createTestApp({ role, db, env: { ORBIT_WORK_DIR: workDir, ORBIT_POLL_INTERVAL_MS: '200', ...env } });
}

/** A job and a manual execution of it, over HTTP. */
async function queue(t: TestApp, command: string, job: JobFields = {}): Promise<Execution> {
  const created = await createJob(t, { command, ...job });
  const execution = await request(t.app.getHttpServer()).post(`/jobs/${created.id}/executions`).expect(201);
  return execution.body as Execution;
}

async function rowsOfJob(db: TestDatabase, jobId: string): Promise<Row[]> {
  const { rows } = await db.sql('SELECT * FROM executions WHERE job_id = $1 ORDER BY attempt, created_at', [jobId]);
  return rows as Row[];
}

async function row(db: TestDatabase, id: string): Promise<Row> {
  const { rows } = await db.sql('SELECT * FROM executions WHERE id = $1', [id]);
  expect(rows).toHaveLength(1);
  return rows[0] as Row;
}

function waitForStatus(db: TestDatabase, id: string, status: string): Promise<Row> {
  return waitFor(async () => {
    const current = await row(db, id);
    return current.status === status ? current : undefined;
  }, `execution ${id} to be ${status}`);
}

/** The pid a command wrote to `file`, once the file is complete. */
function pidIn(file: string): Promise<number> {
  return waitFor(() => {
    if (!existsSync(file)) return undefined;
    const text = readFileSync(file, 'utf8');
    return /^\d+\n$/.test(text) ? Number(text) : undefined;
  }, `the pid in ${file}`);
}

describe('a node shutting down', () => {
  let db: TestDatabase;
  const apps: TestApp[] = [];

  beforeEach(async () => {
    db = await createTestDatabase();
  });

  afterEach(async () => {
    // a test closes its nodes itself; these closes only matter when it failed before that
    for (const app of apps.splice(0)) await app.app.close().catch(() => undefined);
    await db.drop();
  });

  async function started(env: Record<string, string>, role: 'all' | 'api' = 'all'): Promise<TestApp> {
    const t = await node(db, env, role);
    apps.push(t);
    return t;
  }

  /** Closes a node; says when the close began and how long it took. */
  async function close(t: TestApp): Promise<{ began: number; tookMs: number }> {
    const began = Date.now();
    await t.close();
    if (apps.includes(t)) apps.splice(apps.indexOf(t), 1);
    return { began, tookMs: Date.now() - began };
  }

  it('waits for a command that finishes within the shutdown grace, which then succeeds', async () => {
    const t = await started({ ORBIT_SHUTDOWN_GRACE_SECONDS: '5' });
    const pidFile = join(workDir, 'graceful.pid');
    // 2 s rather than 1: the close must begin while it still runs, also on a busy machine
    const queued = await queue(t, `echo $$ > ${pidFile}; sleep 2`, { maxRetries: 1 });
    await waitForStatus(db, queued.id, 'RUNNING');
    const shell = await pidIn(pidFile);
    expect(isAlive(shell)).toBe(true);

    const { began, tookMs } = await close(t);

    expect(tookMs).toBeLessThan(5000);
    const done = await row(db, queued.id);
    expect({ status: done.status, exitCode: done.exit_code, errorMessage: done.error_message }).toEqual({
      status: 'SUCCEEDED',
      exitCode: 0,
      errorMessage: null,
    });
    expect(done.lease_expires_at).toBeNull();
    // it ran to its end while the node was closing: the close waited for it
    expect(done.finished_at.getTime() - done.started_at.getTime()).toBeGreaterThanOrEqual(1900);
    expect(done.finished_at.getTime()).toBeGreaterThanOrEqual(began);
    expect(await rowsOfJob(db, queued.jobId)).toHaveLength(1);
  });

  it('stops a command that outlasts the grace, fails it as shut down and queues its retry elsewhere', async () => {
    const t = await started({ ORBIT_SHUTDOWN_GRACE_SECONDS: '1', ORBIT_KILL_GRACE_SECONDS: '1' });
    const pidFile = join(workDir, 'stopped.pid');
    const queued = await queue(t, `echo $$ > ${pidFile}; sleep 1000`, { maxRetries: 1 });
    await waitForStatus(db, queued.id, 'RUNNING');
    const shell = await pidIn(pidFile);
    expect(isAlive(shell)).toBe(true);

    const { tookMs } = await close(t);

    expect(tookMs).toBeGreaterThanOrEqual(900); // the grace was given
    expect(tookMs).toBeLessThan(6000);
    expect(isAlive(shell)).toBe(false);
    const [failed, retry, ...more] = await rowsOfJob(db, queued.jobId);
    expect(more).toHaveLength(0);
    expect(failed).toMatchObject({ id: queued.id, status: 'FAILED', exit_code: -1, lease_expires_at: null });
    expect(failed!.error_message).toMatch(/^Worker shut down/);
    expect(retry).toMatchObject({
      status: 'QUEUED',
      trigger: 'RETRY',
      attempt: 2,
      retry_of: queued.id,
      worker_id: null,
      started_at: null,
    });
  });

  it('claims nothing new once it began to close, nor after', async () => {
    const t = await started({ ORBIT_SHUTDOWN_GRACE_SECONDS: '10' });
    const api = await started({}, 'api');
    // it does claim while it runs
    const before = await queue(t, 'true');
    await waitForStatus(db, before.id, 'SUCCEEDED');
    const draining = await queue(t, 'sleep 2');
    await waitForStatus(db, draining.id, 'RUNNING');

    // queued while the node waits for its running command: not claimed by the node that is closing
    const closing = close(t);
    await sleep(300);
    const duringClose = await queue(api, 'true');
    await closing;
    expect(await row(db, draining.id)).toMatchObject({ status: 'SUCCEEDED', exit_code: 0 });

    // queued after the close
    const afterClose = await queue(api, 'true');
    await sleep(1200); // several poll intervals of the closed node
    for (const id of [duringClose.id, afterClose.id]) {
      expect(await row(db, id)).toMatchObject({ status: 'QUEUED', started_at: null, worker_id: null });
    }
    await close(api);
  });

  it('drains a run whose claim was still committing when the close began', async () => {
    // the database holds the claim's commit for a second (a deferred trigger of this test only)
    await db.sql(`CREATE FUNCTION held_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                  BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$`);
    await db.sql(`CREATE CONSTRAINT TRIGGER held_claim AFTER UPDATE ON executions_active
                  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
                  WHEN (OLD.status = 'QUEUED' AND NEW.status = 'RUNNING' AND NEW.command LIKE '%# held')
                  EXECUTE FUNCTION held_commit()`);
    const t = await started({ ORBIT_SHUTDOWN_GRACE_SECONDS: '10' });
    const queued = await queue(t, 'sleep 1 # held');
    await waitFor(async () => {
      const { rows } = await db.sql(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`,
      );
      return rows.length > 0 ? true : undefined;
    }, 'the claim to be committing');

    await close(t);

    expect(await row(db, queued.id)).toMatchObject({ status: 'SUCCEEDED', exit_code: 0, lease_expires_at: null });
  });
});
