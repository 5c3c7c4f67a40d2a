/**
 * Alerts: 1,000 runs failing at once deliver 1,000 signed webhooks to a local receiver, all
 * within 5 s of the last failure; and the burst of `true` with a channel on every job against
 * the same burst without, in the same run, alternated so that the machine's drift falls on both.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  Bench,
  clearExecutions,
  createJob,
  deleteJobs,
  enqueue,
  log,
  perSecond,
  ratio,
  sleep,
  startOrbit,
  unfinished,
  until,
  verdict,
} from './support.js';

const FAILURES = 1000;
/** From the last failure to the last webhook received, at most. */
const DELIVERED_WITHIN_MS = 5_000;
/** With a channel on every job, the burst's rate is at least this share of its rate without. */
const WITH_CHANNEL_RATIO = 0.95;
/** Bursts per side, alternated (without, with, without, with): each side's best counts. */
const ROUNDS = 2;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PREFIX = 'bench-alerts';
const WORKER_ENV = { ORBIT_WORKER_CONCURRENCY: '8', ORBIT_ALERTS_ALLOW_PRIVATE: 'true' };

export async function runAlerts(bench: Bench): Promise<void> {
  const receiver = await startReceiver();
  await clearExecutions(bench.db);
  const jobId = await createJob(bench.db, PREFIX);
  try {
    await failingBurst(bench, jobId, receiver);
    await burstWithAndWithout(bench, jobId, receiver.url);
  } finally {
    await bench.db.query(`DELETE FROM channels WHERE name LIKE $1`, [`${PREFIX}%`]);
    await clearExecutions(bench.db);
    await deleteJobs(bench.db, PREFIX);
    await receiver.close();
  }
}

async function failingBurst(bench: Bench, jobId: string, receiver: Receiver): Promise<void> {
  await addChannel(bench, receiver.url, ['failed']);
  const worker = await startOrbit(bench, 'worker', 'alerts-failures', WORKER_ENV);
  try {
    await sleep(500);
    await enqueue(bench.db, jobId, FAILURES, 'exit 1');
    bench.executionsRun += FAILURES;
    await until('the failing burst to finish', async () => (await unfinished(bench.db)) === 0, 120_000);
    await until(
      'every failure to be delivered',
      async () => Promise.resolve(receiver.ids.size >= FAILURES),
      120_000,
      20,
    );
    const { rows } = await bench.db.query<{ last: Date }>(`SELECT max(finished_at) AS last FROM executions`);
    const lagMs = receiver.lastAt - rows[0]!.last.getTime();
    log(
      `alerts: ${receiver.ids.size} signed webhooks (${receiver.invalid} invalid), the last ${lagMs} ms after the last failure`,
    );
    bench.report.figure('alerts_failures', {
      failures: FAILURES,
      webhooks: receiver.ids.size,
      invalidSignatures: receiver.invalid,
      duplicates: receiver.requests - receiver.ids.size,
      lastWebhookAfterLastFailureMs: lagMs,
      target: `<= ${DELIVERED_WITHIN_MS} ms`,
      met: lagMs <= DELIVERED_WITHIN_MS,
    });
    bench.report.add({
      scenario: 'alerts',
      measure: `${FAILURES} runs failing at once → signed webhooks to a local receiver`,
      figure: `${receiver.ids.size} delivered, the last ${(lagMs / 1000).toFixed(2)} s after the last failure`,
      target: `all within ${DELIVERED_WITHIN_MS / 1000} s`,
      verdict: verdict(lagMs <= DELIVERED_WITHIN_MS && receiver.ids.size === FAILURES && receiver.invalid === 0),
    });
  } finally {
    await worker.stop();
    await bench.db.query(`DELETE FROM channels WHERE name LIKE $1`, [`${PREFIX}%`]);
    await clearExecutions(bench.db);
  }
}

async function burstWithAndWithout(bench: Bench, jobId: string, url: string): Promise<void> {
  const { burst } = bench.settings;
  const rates = { without: [] as number[], with: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of ['without', 'with'] as const) {
      if (side === 'with') await addChannel(bench, url, ['failed']);
      const rate = await burstOnce(bench, jobId, `alerts-burst-${side}-${round + 1}`);
      log(`alerts: burst of ${burst} × true ${side} a channel on every job: ${perSecond(rate)}`);
      rates[side].push(rate);
      await bench.db.query(`DELETE FROM channels WHERE name LIKE $1`, [`${PREFIX}%`]);
    }
  }
  const without = Math.max(...rates.without);
  const withChannel = Math.max(...rates.with);
  const share = withChannel / without;
  bench.report.figure('alerts_burst', {
    executions: burst,
    withoutPerSecond: rates.without,
    withPerSecond: rates.with,
    ratio: share,
    target: `>= ${WITH_CHANNEL_RATIO}`,
    met: share >= WITH_CHANNEL_RATIO,
  });
  bench.report.add({
    scenario: 'alerts',
    measure: `${burst} × \`true\`, c8, with a channel on every job (allJobs, on failed) vs without`,
    figure: `${perSecond(withChannel)} vs ${perSecond(without)} (best of ${ROUNDS}, alternated)`,
    target: `≥ ${WITH_CHANNEL_RATIO} × without`,
    ratio: ratio(share),
    verdict: verdict(share >= WITH_CHANNEL_RATIO),
  });
}

async function burstOnce(bench: Bench, jobId: string, name: string): Promise<number> {
  const { burst } = bench.settings;
  const worker = await startOrbit(bench, 'worker', name, WORKER_ENV);
  try {
    await sleep(500);
    const begin = Date.now();
    await enqueue(bench.db, jobId, burst);
    bench.executionsRun += burst;
    await until('the burst to finish', async () => (await unfinished(bench.db)) === 0, 60_000 + burst * 200);
    const { rows } = await bench.db.query<{ last: Date }>(`SELECT max(finished_at) AS last FROM executions`);
    return burst / ((rows[0]!.last.getTime() - begin) / 1000);
  } finally {
    await worker.stop();
    await clearExecutions(bench.db);
  }
}

/** A webhook channel for every job, as POST /channels stores one (the bench writes the row itself, like its jobs). */
async function addChannel(bench: Bench, url: string, on: string[]): Promise<void> {
  await bench.db.query(
    `INSERT INTO channels (id, name, type, settings, all_jobs_on, created_at, updated_at, version)
     VALUES ($1, $2, 'webhook', $3, $4, now(), now(), 1)`,
    [randomUUID(), `${PREFIX}-${randomUUID()}`, { type: 'webhook', url, secret: SECRET }, on],
  );
}

interface Receiver {
  url: string;
  /** The webhook-ids received with a valid signature. */
  ids: Set<string>;
  requests: number;
  invalid: number;
  /** When the last request arrived (ms since the epoch). */
  lastAt: number;
  close(): Promise<void>;
}

/** A receiver in the bench's process: checks every signature with the standardwebhooks package, answers 200. */
async function startReceiver(): Promise<Receiver> {
  const webhook = new Webhook(SECRET);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests++;
      receiver.lastAt = Date.now();
      try {
        webhook.verify(Buffer.concat(chunks).toString(), req.headers as Record<string, string>);
        receiver.ids.add(String(req.headers['webhook-id']));
      } catch {
        receiver.invalid++;
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/orbit`,
    ids: new Set(),
    requests: 0,
    invalid: 0,
    lastAt: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return receiver;
}
