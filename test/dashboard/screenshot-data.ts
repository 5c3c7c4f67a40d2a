import { createHash } from 'node:crypto';
import request from 'supertest';
import { ExecutionOutputRepository } from '../../src/executions/application/execution-output.repository.js';
import { ExecutionRepository } from '../../src/executions/application/execution.repository.js';
import { JobRepository } from '../../src/jobs/application/job.repository.js';
import { Execution, type ExecutionTrigger } from '../../src/executions/domain/execution.js';
import { WorkerRegistry } from '../../src/workers/application/worker-registry.js';
import type { FakeClock } from '../support/fake-clock.js';
import type { TestApp } from '../support/test-app.js';

/** The instant every picture is taken at, on the server's clock and in the page. */
export const NOW = new Date('2026-03-12T14:32:10.000Z');

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

/** A made-up id that is the same on every run (the pages show the start of a run's id). */
function fixedId(name: string): string {
  const hex = createHash('sha1').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

interface Job {
  id: string;
  name: string;
  command: string;
  maxRetries: number;
  timeoutSeconds: number;
}

/** How one run went: when it was due, how long it took, and how it ended. */
interface Run {
  at: Date;
  tookMs: number;
  exitCode?: number;
  trigger?: ExecutionTrigger;
  /** Still running (on the first worker). */
  running?: boolean;
}

const BACKUP_OUTPUT = {
  stdout:
    '\u001b[1mBacking up\u001b[0m /var/lib/app\ndumped users\ndumped orders\ndumped invoices\n' +
    '\u001b[32mdone\u001b[0m in 2.1 s\n',
  stderr: 'warning: 3 rows skipped\n',
};

/**
 * The same dashboard every time: jobs, runs, workers, channels, a group and tokens with fixed
 * names, ids and instants, written at the server's fake clock (through the API, and for runs and
 * workers through the app's own repositories), so that two pictures of a page differ only where
 * the page changed. Answers what the pictures open.
 */
export async function seedScreenshotData(
  t: TestApp,
  clock: FakeClock,
): Promise<{ backupId: string; backupRunId: string; warmupId: string }> {
  const api = () => request(t.app.getHttpServer());
  // each write a second after the last: lists ordered by time never tie
  const at = (instant: Date) => clock.set(instant);
  const write = async <T>(send: () => PromiseLike<{ body: T; status: number }>): Promise<T> => {
    clock.advance(SECOND);
    const res = await send();
    if (res.status >= 300) throw new Error(`seed write answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const executions = t.app.get(ExecutionRepository);
  const outputs = t.app.get(ExecutionOutputRepository);

  at(ago(8 * DAY));
  await write(() =>
    api().post('/channels').send({ name: 'ops-webhook', type: 'webhook', url: 'http://localhost:8080/hooks/orbit' }),
  );
  await write(() =>
    api()
      .post('/channels')
      .send({ name: 'oncall-email', type: 'email', to: ['oncall@example.com'], allJobs: { on: ['failed'] } }),
  );
  await write(() => api().post('/concurrency-groups').send({ name: 'database-dumps', limit: 2 }));
  const job = (body: Record<string, unknown>) => write<Job>(() => api().post('/jobs').send(body));
  const backup = await job({
    name: 'nightly-backup',
    command:
      'pg_dump --format=custom app | gzip > /backups/app-$(date +%F).dump.gz && ' +
      'aws s3 cp /backups/app-$(date +%F).dump.gz s3://example-backups/',
    cronExpression: '30 2 * * *',
    timezone: 'Europe/Berlin',
    maxRetries: 2,
    concurrencyGroup: 'database-dumps',
    description: 'The database, every night, to the bucket of backups',
  });
  const report = await job({
    name: 'weekly-report',
    command: './bin/report --week last --mail team@example.com',
    cronExpression: '0 9 * * 1',
    timezone: 'America/New_York',
    alerts: [{ channel: 'ops-webhook', on: ['failed', 'recovered'] }],
  });
  const warmup = await job({ name: 'cache-warmup', command: './bin/warm-cache --all', cronExpression: '*/15 * * * *' });
  const legacy = await job({ name: 'legacy-sync', command: './bin/sync --legacy', cronExpression: '@hourly' });
  await write(() => api().post('/tokens').send({ name: 'deploy-pipeline', role: 'operator' }));
  await write(() => api().post('/tokens').send({ name: 'grafana-readonly', role: 'viewer' }));

  at(ago(2 * DAY));
  await write(() => api().post(`/jobs/${legacy.id}/pause`).send({ note: 'until the new API is live' }));

  const workers = t.app.get(WorkerRegistry);
  const worker = {
    host: 'orbit-worker-1',
    pid: 4242,
    version: '0.1.0',
    concurrency: 4,
    startedAt: ago(3 * DAY),
    lastHeartbeatAt: ago(4 * SECOND),
    running: 1,
    labels: { region: 'eu-west', disk: 'ssd' },
    draining: false,
    launcher: 'native' as const,
    loadAverage: 0.42,
    cpus: 4,
  };
  await workers.register({ ...worker, id: 'worker-eu-1' });
  await workers.register({
    ...worker,
    id: 'worker-eu-2',
    host: 'orbit-worker-2',
    pid: 5151,
    running: 0,
    lastHeartbeatAt: ago(9 * SECOND),
    draining: true,
    loadAverage: 0.05,
  });

  let made = 0;
  /** Writes the run as a worker would have: queued, started a second after it was due, ended. */
  async function run(of: Job, { at: due, tookMs, exitCode = 0, trigger = 'SCHEDULE', running }: Run) {
    const created = Execution.create({ ...of, jobId: of.id }, due, {
      trigger,
      scheduledFor: trigger === 'SCHEDULE' ? due : null,
    });
    const execution = Execution.restore({ ...created.toProps(), id: fixedId(`run-${(made += 1)}`) });
    await executions.insert(execution);
    const started = new Date(due.getTime() + SECOND);
    execution.start(started, 'worker-eu-1');
    await executions.save(execution);
    if (running) return execution;
    const ended = new Date(started.getTime() + tookMs);
    if (exitCode === 0) execution.succeed(0, ended);
    else execution.fail(exitCode, `exit code ${exitCode}`, ended);
    await executions.save(execution);
    return execution;
  }

  // a week of nightly backups (02:30 in Berlin, 01:30 UTC in March), the fourth failed once and its retry succeeded
  let backupRunId = '';
  for (let day = 6; day >= 0; day--) {
    const slot = new Date(Date.UTC(2026, 2, 12 - day, 1, 30));
    const took = 2100 + ((day * 373) % 900);
    if (day === 3) {
      const failed = await run(backup, { at: slot, tookMs: 900, exitCode: 1 });
      const retry = Execution.restore({
        ...failed.retry(new Date(slot.getTime() + 2 * SECOND), 30 * SECOND).toProps(),
        id: fixedId(`run-${(made += 1)}`),
      });
      await executions.insert(retry);
      retry.start(new Date(slot.getTime() + 33 * SECOND), 'worker-eu-1');
      await executions.save(retry);
      retry.succeed(0, new Date(slot.getTime() + 33 * SECOND + took));
      await executions.save(retry);
    } else {
      backupRunId = (await run(backup, { at: slot, tookMs: took })).id;
    }
  }
  await outputs.saveAll([{ executionId: backupRunId, output: { ...BACKUP_OUTPUT, truncated: false } }], ago(DAY));

  // the weekly report failed three times in a row today, run by hand
  for (const hours of [5, 3, 1]) {
    await run(report, { at: ago(hours * HOUR + 17 * MINUTE), tookMs: 240, exitCode: 3, trigger: 'MANUAL' });
  }

  // the cache warmed every quarter of an hour, but for the hour it was paused; the current one runs
  const warmupSlots: Date[] = [];
  for (let slot = Date.UTC(2026, 2, 12, 5, 45); slot <= Date.UTC(2026, 2, 12, 14, 30); slot += 15 * MINUTE) {
    warmupSlots.push(new Date(slot));
  }
  const pausedFrom = Date.UTC(2026, 2, 12, 9, 40);
  const pausedUntil = Date.UTC(2026, 2, 12, 10, 40);
  for (const [i, slot] of warmupSlots.entries()) {
    if (slot.getTime() > pausedFrom && slot.getTime() < pausedUntil) continue;
    if (slot.getTime() === pausedFrom - 10 * MINUTE) {
      at(new Date(pausedFrom));
      await write(() => api().post(`/jobs/${warmup.id}/pause`).send({ note: 'cache cluster maintenance' }));
      at(new Date(pausedUntil));
      await write(() => api().post(`/jobs/${warmup.id}/resume`).send({}));
    }
    const last = i === warmupSlots.length - 1;
    await run(warmup, { at: slot, tookMs: 38_000 + ((i * 7919) % 21_000), exitCode: i === 20 ? 2 : 0, running: last });
  }

  // as the scheduler leaves them: each enabled job's next slot after now
  const jobs = t.app.get(JobRepository);
  const planned = await Promise.all([backup, report, warmup].map(({ id }) => jobs.findById(id)));
  for (const job of planned) job!.planFrom(NOW);
  await jobs.saveSchedules(planned.map((job) => job!));
  at(NOW);
  return { backupId: backup.id, backupRunId, warmupId: warmup.id };
}
