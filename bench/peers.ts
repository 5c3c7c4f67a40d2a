/**
 * Peers: the Postgres job queues beside Orbit, each at its best documented settings.
 * graphile-worker, pg-boss 10 and pg-boss 12 run Orbit's own workloads of targets 1 and 2 (a burst
 * of `true` at concurrency 8; jobs added 20 ms apart to an idle, warmed worker) on the run's
 * PostgreSQL, each worker in its own process (peer-graphile-worker.mjs, peer-pg-boss.mjs,
 * peer-pg-boss-12.mjs) with its own schema. The bench adds the jobs
 * through each peer's own client API, as an application would; the handlers report when each job
 * started and ended (peer-handler.mjs). The figures go beside Orbit's from the same run.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkerUtils } from 'graphile-worker';
import PgBoss10 from 'pg-boss';
import { PgBoss as PgBoss12 } from 'pg-boss-12';
import type { LauncherKind } from '../src/config/orbit-config.js';
import { burstOnce, LATENCY_SPACING_MS, LATENCY_WARM_UP_RUNS, LAUNCHER_NAMES } from './burst.js';
import { combined, CpuSample, describeCpu, perExecution, postgresTree, workerTree } from './cpu.js';
import {
  describeIndexEntries,
  describeRowVersions,
  describeWal,
  walPosition,
  walSince,
  WalPerExecution,
} from './wal.js';
import {
  bareNodeRate,
  Bench,
  C8Burst,
  createJob,
  deleteJobs,
  Distribution,
  distribution,
  log,
  median,
  ms,
  perSecond,
  ratio,
  ROOT,
  scalar,
  sleep,
  tail,
  until,
  verdict,
} from './support.js';

const CONCURRENCY = 8;
/** Orbit's CPU per execution beside the commands with the native launcher, at most this share of graphile-worker's. */
const CPU_TARGET_SHARE = 0.8;
/** Orbit's c8 burst rate with the native launcher, at least this multiple of graphile-worker's. */
const RATE_TARGET_MULTIPLE = 1.2;
/** What PostgreSQL spends per run (its CPU) for Orbit, at most this multiple of graphile-worker's; and what it writes. */
const PG_TARGET_MULTIPLE = 1.3;
const ROW_VERSIONS_TARGET = 4;
const INDEX_ENTRIES_TARGET = 10;
/** The task (graphile-worker) or queue (pg-boss) name the peers run peer-handler.mjs for. */
const TASK = 'bench-true';

/** A job's payload: which batch it belongs to (a retried job from an earlier batch can't be mistaken) and its number in it. */
interface Payload {
  tag: string;
  n: number;
}

/** One handler run, as peer-handler.mjs reports it (Date.now() in the peer process). */
interface Run extends Payload {
  startedAt: number;
  endedAt: number;
  code: number | null;
}

/** Adds jobs through the peer's own client, from the bench process. */
interface Producer {
  add(payload: Payload): Promise<void>;
  /** All of them in one statement, as Orbit's burst is queued. */
  addMany(payloads: Payload[]): Promise<void>;
  close(): Promise<void>;
}

interface Peer {
  /** Its key in the JSON, and the folder in node_modules its version is read from. */
  name: 'graphile-worker' | 'pg-boss' | 'pg-boss-12';
  /** What the table calls it, before its version. */
  label: string;
  script: string;
  /** How its worker is set up, for the table. */
  setup: string;
  /** The options its script passes to the peer (PEER_SETTINGS), also written to the JSON. */
  settings: Record<string, unknown>;
  /** Its schema in the run's database, dropped when the scenario is over. */
  schema: string;
  producer(url: string): Promise<Producer>;
  /** Jobs of TASK not yet finished or failed (a failed one waits for a retry that is not measured). */
  unfinishedSql: string;
}

/**
 * Each peer with its best documented settings for these two workloads: many short jobs at
 * concurrency 8, and single jobs that should start at once.
 *
 * graphile-worker: its docs' "Batching" advice for high throughput (Performance page): a local
 * queue of concurrency + 1 jobs fetched at once, and batched completions; the batch delays are 0,
 * as in its own performance test (250 ms is its suggested start, but a job then stays locked up
 * to 250 ms after its end, where Orbit's finished row is written with the cycle). Prepared
 * statements (its default), LISTEN/NOTIFY (always on), the pool of 10 it advises (the larger of
 * 10 and concurrency + 2).
 */
const GRAPHILE_WORKER_SETTINGS = {
  concurrentJobs: CONCURRENCY,
  localQueue: { size: CONCURRENCY + 1 },
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
  preparedStatements: true,
  maxPoolSize: Math.max(10, CONCURRENCY + 2),
  pollInterval: 2000,
};
/**
 * pg-boss 10: no LISTEN/NOTIFY and one poller per work() call, at most every 0.5 s (its floor).
 * Eight pollers of one job made 16/s; with a batch, each of the eight lanes fetches again at once
 * when its batch took longer than the interval, so a batch of 50 keeps a lane busy up to 100
 * jobs/s (800/s in all, beyond bare Node's rate on these machines).
 */
const PG_BOSS_10_SETTINGS = { workers: CONCURRENCY, batchSize: 50, pollingIntervalSeconds: 0.5 };
/**
 * pg-boss 12: its LISTEN/NOTIFY (useListenNotify on the instance, notify on the queue), its own
 * concurrency option (localConcurrency: lanes in one work() call), and burstWhenBatchFull, which
 * fetches again at once while batches come back full, so the batch only has to spare round trips
 * (10: a tenth of the fetches and completions of single jobs, and a short tail at the end).
 */
const PG_BOSS_12_SETTINGS = {
  schema: 'pgboss_v12',
  useListenNotify: true,
  notify: true,
  localConcurrency: CONCURRENCY,
  batchSize: 10,
  burstWhenBatchFull: true,
};

const PEERS: Peer[] = [
  {
    name: 'graphile-worker',
    label: 'graphile-worker',
    script: join(ROOT, 'bench/peer-graphile-worker.mjs'),
    setup:
      `concurrency ${CONCURRENCY}, LISTEN/NOTIFY, localQueue ${GRAPHILE_WORKER_SETTINGS.localQueue.size}, ` +
      `completeJobBatchDelay/failJobBatchDelay 0, prepared statements`,
    settings: GRAPHILE_WORKER_SETTINGS,
    schema: 'graphile_worker',
    producer: graphileWorkerProducer,
    // a finished job is deleted; a failed one stays, unlocked, with its error
    unfinishedSql: `SELECT count(*)::int AS value FROM graphile_worker.jobs
                     WHERE task_identifier = '${TASK}' AND (last_error IS NULL OR locked_at IS NOT NULL)`,
  },
  {
    name: 'pg-boss',
    label: 'pg-boss',
    script: join(ROOT, 'bench/peer-pg-boss.mjs'),
    setup:
      `${CONCURRENCY} work() lanes, batchSize ${PG_BOSS_10_SETTINGS.batchSize} each, ` +
      `pollingIntervalSeconds 0.5 (its floor), no LISTEN/NOTIFY (none in v10)`,
    settings: PG_BOSS_10_SETTINGS,
    schema: 'pgboss',
    producer: (url) => pgBossProducer(url, 'pgboss', PgBoss10),
    unfinishedSql: pgBossUnfinished('pgboss'),
  },
  {
    name: 'pg-boss-12',
    label: 'pg-boss',
    script: join(ROOT, 'bench/peer-pg-boss-12.mjs'),
    setup:
      `LISTEN/NOTIFY, localConcurrency ${CONCURRENCY}, batchSize ${PG_BOSS_12_SETTINGS.batchSize}, ` +
      `burstWhenBatchFull`,
    settings: PG_BOSS_12_SETTINGS,
    schema: PG_BOSS_12_SETTINGS.schema,
    producer: (url) => pgBossProducer(url, PG_BOSS_12_SETTINGS.schema, PgBoss12),
    unfinishedSql: pgBossUnfinished(PG_BOSS_12_SETTINGS.schema),
  },
];

function pgBossUnfinished(schema: string): string {
  return `SELECT count(*)::int AS value FROM ${schema}.job
           WHERE name = '${TASK}' AND state IN ('created', 'retry', 'active')`;
}

async function graphileWorkerProducer(url: string): Promise<Producer> {
  const utils = await makeWorkerUtils({ connectionString: url, maxPoolSize: 1 });
  // open its connection now, so that the first add is not also a connect
  await utils.withPgClient((client) => client.query('SELECT 1'));
  return {
    add: async (payload) => {
      await utils.addJob(TASK, payload);
    },
    addMany: async (payloads) => {
      await utils.addJobs(payloads.map((payload) => ({ identifier: TASK, payload })));
    },
    close: async () => {
      await utils.release();
    },
  };
}

/** What the bench's producer uses of either major version's client. */
interface PgBossClient {
  on(event: 'error', listener: (error: Error) => void): unknown;
  start(): Promise<unknown>;
  send(name: string, data: object): Promise<unknown>;
  stop(options: { graceful: boolean }): Promise<void>;
}

async function pgBossProducer(
  url: string,
  schema: string,
  Client: new (options: Record<string, unknown>) => PgBossClient,
): Promise<Producer> {
  // a producer only: the worker process installs the schema and runs maintenance and cron
  const options = { connectionString: url, schema, max: 1, migrate: false, supervise: false, schedule: false };
  const boss = new Client(options);
  boss.on('error', (error: Error) => log(`pg-boss (the bench's producer): ${error.message}`));
  await boss.start();
  return {
    add: async (payload) => {
      await boss.send(TASK, payload);
    },
    addMany: async (payloads) => {
      // v10 takes the queue in each job, v12 as the first argument
      if (Client === PgBoss10) await (boss as PgBoss10).insert(payloads.map((data) => ({ name: TASK, data })));
      else
        await (boss as PgBoss12).insert(
          TASK,
          payloads.map((data) => ({ data })),
        );
    },
    close: () => boss.stop({ graceful: false }),
  };
}

// ---------------------------------------------------------------------------------------------
// the scenario

interface PeerBurst {
  perSecond: number;
  seconds: number;
  /** From the queueing to the first handler start. */
  firstStartMs: number;
  succeeded: number;
  failed: number;
  /** CPU ms per job: the peer's worker process, PostgreSQL, the commands (cpu.ts). */
  cpuMs: CpuSample;
  /** What PostgreSQL wrote per job, its adding included (wal.ts). */
  wal: WalPerExecution;
}

interface PeerLatency {
  latency: Distribution;
  /** How long the add call itself took (its commit included): part of each latency above, not of Orbit's, whose
   * created_at is taken inside its insert. */
  addCallMs: Distribution;
  unfinishedAhead: Distribution;
  firstRunsAfterStart: Distribution;
}

export async function runPeers(bench: Bench): Promise<void> {
  const orbit = await orbitFigures(bench);
  const figures: Record<string, unknown> = { orbit };
  try {
    for (const peer of PEERS) {
      const version = versionOf(peer.name);
      const title = `${peer.label} ${version}`;
      try {
        log(`peers: ${title}, ${bench.settings.burst} × /bin/sh -c true, ${peer.setup}`);
        const burst = await peerBurst(bench, peer);
        log(`peers: ${title} ${perSecond(burst.perSecond)} (${burst.seconds.toFixed(1)} s, ${burst.failed} failed)`);
        log(`peers: ${title}, CPU per job ${describeCpu(burst.cpuMs)}; ${describeWal(burst.wal)}`);
        log(
          `peers: ${title}, ${bench.settings.latencyRuns} jobs added ${LATENCY_SPACING_MS} ms apart to an idle worker`,
        );
        const latency = await peerLatency(bench, peer);
        log(`peers: ${title} p50 ${ms(latency.latency.p50)}, p99 ${ms(latency.latency.p99)}`);
        const rounds = isJudged(peer) && orbit.c8.native ? await databaseRounds(bench, peer, title) : undefined;
        figures[peer.name] = {
          version,
          setup: peer.setup,
          settings: peer.settings,
          burst,
          idleLatencyMs: latency,
          ...(rounds ? { postgresMsPerRunInTurns: rounds } : {}),
        };
        reportPeer(bench, peer, title, orbit, burst, latency, rounds);
      } catch (error) {
        // one peer that does not run (on this Node, say) leaves the others' figures standing
        const message = error instanceof Error ? error.message : String(error);
        log(`peers: ${title} FAILED: ${message}`);
        figures[peer.name] = { version, setup: peer.setup, settings: peer.settings, error: message };
        bench.report.add({
          scenario: 'peers',
          measure: `${title}: ${peer.setup}`,
          figure: `did not run: ${message.split('\n')[0]}`,
          target: `Node ${process.versions.node}`,
          verdict: 'info',
        });
      }
    }
  } finally {
    bench.report.figure('peers', figures);
    // their tables would otherwise sit beside Orbit's (and be vacuumed) through the later scenarios
    for (const peer of PEERS) await bench.db.query(`DROP SCHEMA IF EXISTS ${peer.schema} CASCADE`);
  }
}

interface OrbitFigures {
  /** Orbit's bursts at 1 worker, concurrency 8, by launcher, if the burst scenario ran. */
  c8: Partial<Record<LauncherKind, C8Burst>>;
  bareNodeC8PerSecond: number;
  idleLatencyMs: { p50: number; p99: number } | null;
}

/** Orbit's figures from this run, and the bare-Node c8 rate (measured here if the burst did not run). */
async function orbitFigures(bench: Bench): Promise<OrbitFigures> {
  let bare = bench.burstRates.bareC8;
  if (bare === undefined) {
    log(
      `peers: bare Node, ${bench.settings.burst} × /bin/sh -c true at concurrency ${CONCURRENCY} (no burst in this run)`,
    );
    bare = await bareNodeRate(bench.settings.burst, CONCURRENCY);
  }
  return {
    c8: bench.c8Bursts,
    bareNodeC8PerSecond: bare,
    idleLatencyMs: bench.idleLatencyMs ?? null,
  };
}

function reportPeer(
  bench: Bench,
  peer: Peer,
  title: string,
  orbit: OrbitFigures,
  burst: PeerBurst,
  latency: PeerLatency,
  rounds: DatabaseRound[] | undefined,
): void {
  const { burst: jobs, latencyRuns } = bench.settings;
  const bare = `bare Node c${CONCURRENCY} ${perSecond(orbit.bareNodeC8PerSecond)}`;
  const judged = isJudged(peer);
  const native = orbit.c8.native;
  const orbitRate = judged ? native?.perSecond : undefined;
  bench.report.add({
    scenario: 'peers',
    measure: `${title}: ${jobs} × \`true\`, 1 worker process, ${peer.setup}`,
    figure: perSecond(burst.perSecond) + (burst.failed > 0 ? ` (${burst.failed} FAILED)` : ''),
    target:
      native === undefined
        ? `${bare} (no Orbit burst in this run)`
        : `Orbit c${CONCURRENCY}, native launcher ${perSecond(native.perSecond)} (this run)` +
          (orbitRate ? ` ≥ ${RATE_TARGET_MULTIPLE} × this` : '') +
          `; ${bare}`,
    ratio: ratio((native?.perSecond ?? orbit.bareNodeC8PerSecond) / burst.perSecond),
    verdict: orbitRate ? verdict(orbitRate >= RATE_TARGET_MULTIPLE * burst.perSecond) : 'info',
  });
  const orbitCpu = judged ? native : undefined;
  const cpuShare = (run: C8Burst) => run.cpuMs.besideCommands! / burst.cpuMs.besideCommands!;
  bench.report.add({
    scenario: 'peers',
    measure: `${title}: CPU per job in that burst, beside the commands`,
    figure: `${describeCpu(burst.cpuMs)}; ${describeWal(burst.wal)}`,
    target: orbitCpu
      ? `Orbit c${CONCURRENCY}, native launcher ${describeCpu(orbitCpu.cpuMs)} ≤ ${CPU_TARGET_SHARE} × this; ` +
        `Orbit ${describeWal(orbitCpu.wal)}`
      : 'report',
    ratio: orbitCpu ? ratio(cpuShare(orbitCpu)) : '',
    verdict: orbitCpu ? verdict(cpuShare(orbitCpu) <= CPU_TARGET_SHARE) : 'info',
  });
  if (native) reportDatabaseShare(bench, title, judged, native, burst, rounds);
  const spawner = judged ? orbit.c8.node : undefined;
  if (spawner) {
    const name = LAUNCHER_NAMES.node;
    bench.report.add({
      scenario: 'peers',
      measure: `… Orbit c${CONCURRENCY} with the ${name} (this run), against ${title}'s rate`,
      figure: perSecond(spawner.perSecond),
      target: `report; ${title} ${perSecond(burst.perSecond)}`,
      ratio: ratio(spawner.perSecond / burst.perSecond),
      verdict: 'info',
    });
    bench.report.add({
      scenario: 'peers',
      measure: `… Orbit c${CONCURRENCY} with the ${name}, CPU per execution beside the commands, against ${title}'s`,
      figure: describeCpu(spawner.cpuMs),
      target: `report; ${title} ${burst.cpuMs.besideCommands!.toFixed(2)} ms`,
      ratio: ratio(cpuShare(spawner)),
      verdict: 'info',
    });
  }
  const { latency: l, unfinishedAhead: ahead } = latency;
  bench.report.add({
    scenario: 'peers',
    measure:
      `${title}: add → handler start, idle worker, ${latencyRuns} jobs ${LATENCY_SPACING_MS} ms apart ` +
      `(the add call itself, commit included: p50 ${ms(latency.addCallMs.p50)}; ` +
      `earlier jobs unfinished at adding: p50 ${ahead.p50}, max ${ahead.max})`,
    figure: `p50 ${ms(l.p50)}, p99 ${ms(l.p99)} (max ${ms(l.max)})`,
    target:
      orbit.idleLatencyMs === null
        ? 'no Orbit latency in this run'
        : `Orbit p50 ${ms(orbit.idleLatencyMs.p50)}, p99 ${ms(orbit.idleLatencyMs.p99)} (this run)` +
          (judged ? ', no worse than this' : ''),
    verdict:
      judged && orbit.idleLatencyMs
        ? verdict(orbit.idleLatencyMs.p50 <= l.p50 && orbit.idleLatencyMs.p99 <= l.p99)
        : 'info',
  });
}

/** Runs per second one PostgreSQL core carries at `pgMs` of its CPU per run: the ceiling of a cluster that shares it. */
const ceiling = (pgMs: number) => `${Math.round(1000 / pgMs).toLocaleString('en-US')} runs/s per PostgreSQL core`;

/** The targets are set against graphile-worker, and met with the native launcher; the other peers are reported. */
const isJudged = (peer: Peer) => peer.name === 'graphile-worker';

/** One pair of c8 bursts run one after the other: PostgreSQL's CPU per run in each, ms. */
interface DatabaseRound {
  orbitMs: number;
  peerMs: number;
  /** Which of the two ran first. */
  first: 'orbit' | 'peer';
}

/**
 * PostgreSQL's CPU per run moves with the machine's state by more than the target's margin, and
 * one burst is a few seconds of it. So Orbit's c8 burst (native launcher) and the peer's run in
 * turns, `BENCH_PG_ROUNDS` pairs, each pair starting with the other than the pair before: the
 * ratio is taken within each pair, whose bursts ran seconds apart, and the median pair counts.
 */
async function databaseRounds(bench: Bench, peer: Peer, title: string): Promise<DatabaseRound[]> {
  const prefix = 'bench-peers-orbit';
  const jobId = await createJob(bench.db, prefix);
  const orbitMs = async () => (await burstOnce(bench, jobId, [CONCURRENCY])).cpuMs.postgres!;
  const peerMs = async () => (await peerBurst(bench, peer)).cpuMs.postgres!;
  const rounds: DatabaseRound[] = [];
  try {
    for (let n = 1; n <= bench.settings.pgRounds; n++) {
      const first: DatabaseRound['first'] = n % 2 === 1 ? 'orbit' : 'peer';
      log(
        `peers: PostgreSQL's CPU per run, pair ${n} of ${bench.settings.pgRounds}, ${first === 'orbit' ? 'Orbit' : title} first`,
      );
      const round =
        first === 'orbit'
          ? { orbitMs: await orbitMs(), peerMs: await peerMs(), first }
          : { peerMs: await peerMs(), orbitMs: await orbitMs(), first };
      log(`peers: Orbit ${round.orbitMs.toFixed(2)} ms, ${title} ${round.peerMs.toFixed(2)} ms`);
      rounds.push(round);
    }
  } finally {
    await deleteJobs(bench.db, prefix);
  }
  return rounds;
}

/**
 * Workers scale out and the database does not: what PostgreSQL spends per run bounds a cluster.
 * Orbit's c8 burst with the native launcher against the peer's, and the ceiling each implies:
 * the median of the pairs in turns where they ran (the graphile-worker judged against), else the
 * first bursts of each.
 */
function reportDatabaseShare(
  bench: Bench,
  title: string,
  judged: boolean,
  orbit: C8Burst,
  peer: PeerBurst,
  rounds: DatabaseRound[] | undefined,
): void {
  const inTurns = rounds !== undefined && rounds.length > 0;
  const orbitPg = inTurns ? median(rounds.map((r) => r.orbitMs)) : orbit.cpuMs.postgres!;
  const peerPg = inTurns ? median(rounds.map((r) => r.peerMs)) : peer.cpuMs.postgres!;
  const share = inTurns ? median(rounds.map((r) => r.orbitMs / r.peerMs)) : orbitPg / peerPg;
  const { rowVersions, indexEntries } = orbit.wal;
  const writes = rowVersions !== null && indexEntries !== null;
  const writesMet = writes && rowVersions <= ROW_VERSIONS_TARGET && indexEntries <= INDEX_ENTRIES_TARGET;
  const pairs = inTurns
    ? `; ${rounds.length} pairs in turns, Orbit/${title}: ` +
      rounds.map((r) => `${r.orbitMs.toFixed(2)}/${r.peerMs.toFixed(2)} (${ratio(r.orbitMs / r.peerMs)})`).join(', ')
    : '';
  bench.report.add({
    scenario: 'peers',
    measure:
      `… PostgreSQL's CPU per run, Orbit c${CONCURRENCY} (native launcher) against ${title}, and the cluster ceiling each implies` +
      (inTurns ? ` (medians of ${rounds.length} pairs of bursts in turns; the ratio is the median pair's)` : ''),
    figure: `Orbit ${orbitPg.toFixed(2)} ms: ${ceiling(orbitPg)}; ${title} ${peerPg.toFixed(2)} ms: ${ceiling(peerPg)}${pairs}`,
    target: judged ? `Orbit ≤ ${PG_TARGET_MULTIPLE} × ${title}'s` : 'report',
    ratio: ratio(share),
    verdict: judged ? verdict(share <= PG_TARGET_MULTIPLE) : 'info',
  });
  if (!judged) return;
  bench.report.add({
    scenario: 'peers',
    measure: `… what PostgreSQL writes per run, Orbit c${CONCURRENCY} against ${title}`,
    figure: `Orbit ${describeWal(orbit.wal)}; ${title} ${describeWal(peer.wal)}`,
    target: `Orbit ≤ ${ROW_VERSIONS_TARGET} row versions and ≤ ${INDEX_ENTRIES_TARGET} index entries`,
    verdict: writes ? verdict(writesMet) : 'info',
  });
  bench.report.add({
    scenario: 'peers',
    measure: `… Orbit's index entries per run at c${CONCURRENCY}, by index (a day's partition counted under its table's index)`,
    figure: describeIndexEntries(orbit.wal),
    target: 'report: where the index entries are',
    verdict: 'info',
  });
  bench.report.add({
    scenario: 'peers',
    measure: `… Orbit's row versions per run at c${CONCURRENCY}, by table (a day's partition counted under its table)`,
    figure: describeRowVersions(orbit.wal),
    target: 'report: where the row versions are',
    verdict: 'info',
  });
}

function versionOf(name: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Target 1's workload: the worker started and settled, the whole burst added in one statement, timed until the last handler ended. */
async function peerBurst(bench: Bench, peer: Peer): Promise<PeerBurst> {
  const { burst } = bench.settings;
  const worker = await startPeer(bench, peer, `peer-${peer.name}-burst`);
  const producer = await peer.producer(bench.adminUrl);
  try {
    await sleep(500); // as for Orbit: the worker's first polls and LISTEN settle
    const payloads = Array.from({ length: burst }, (_, n) => ({ tag: 'burst', n }));
    const cpu = combined(await postgresTree(bench.db), workerTree(worker.pid));
    const cpuBefore = cpu();
    const walFrom = await walPosition(bench.db);
    const begin = Date.now();
    await producer.addMany(payloads);
    const runs = await finished(bench, peer, worker, 'burst', burst, 60_000 + burst * 200);
    const cpuMs = perExecution(cpuBefore, cpu(), burst);
    const wal = await walSince(bench.db, walFrom, burst);
    // the same span as Orbit's: from the queueing to the last end (here the handler's, after its command exited)
    const last = Math.max(...runs.map((run) => run.endedAt));
    const seconds = (last - begin) / 1000;
    const failed = runs.filter((run) => run.code !== 0).length;
    return {
      perSecond: burst / seconds,
      seconds,
      firstStartMs: Math.min(...runs.map((run) => run.startedAt)) - begin,
      succeeded: runs.length - failed,
      failed,
      cpuMs,
      wal,
    };
  } finally {
    await producer.close();
    await worker.stop();
  }
}

/** Target 2's workload: a warm-up batch on the fresh worker (reported apart), then the measured one on the idle, warmed worker. */
async function peerLatency(bench: Bench, peer: Peer): Promise<PeerLatency> {
  const worker = await startPeer(bench, peer, `peer-${peer.name}-latency`);
  const producer = await peer.producer(bench.adminUrl);
  try {
    await sleep(1000); // the worker's start-up work is over
    const cold = await spacedAdds(bench, peer, worker, producer, 'cold', LATENCY_WARM_UP_RUNS);
    await sleep(1000); // idle again
    const runs = await spacedAdds(bench, peer, worker, producer, 'idle', bench.settings.latencyRuns);
    return {
      latency: distribution(runs.map((run) => run.ms)),
      addCallMs: distribution(runs.map((run) => run.addCallMs)),
      unfinishedAhead: distribution(runs.map((run) => run.unfinishedAhead)),
      firstRunsAfterStart: distribution(cold.map((run) => run.ms)),
    };
  } finally {
    await producer.close();
    await worker.stop();
  }
}

/**
 * `count` jobs added LATENCY_SPACING_MS apart, each one's add instant taken just before its add
 * call; once all ran, each one's add → handler start, and how many earlier ones had not ended
 * when it was added (the worker is idle only if it keeps up).
 */
async function spacedAdds(
  bench: Bench,
  peer: Peer,
  worker: PeerProcess,
  producer: Producer,
  tag: string,
  count: number,
): Promise<{ ms: number; addCallMs: number; unfinishedAhead: number }[]> {
  const addedAt: number[] = [];
  const addCallMs: number[] = [];
  const begin = Date.now();
  for (let n = 0; n < count; n++) {
    addedAt.push(Date.now());
    await producer.add({ tag, n });
    addCallMs.push(Date.now() - addedAt[n]!);
    await sleep(Math.max(0, begin + (n + 1) * LATENCY_SPACING_MS - Date.now()));
  }
  const runs = await finished(bench, peer, worker, tag, count, 60_000 + count * 100);
  return runs.map((run) => {
    const added = addedAt[run.n]!;
    return {
      ms: run.startedAt - added,
      addCallMs: addCallMs[run.n]!,
      unfinishedAhead: runs.filter((other) => other.n < run.n && other.endedAt > added).length,
    };
  });
}

/** Waits until the peer's queue has no unfinished job, then collects the batch's runs (each job's first). */
async function finished(
  bench: Bench,
  peer: Peer,
  worker: PeerProcess,
  tag: string,
  count: number,
  timeoutMs: number,
): Promise<Run[]> {
  await until(
    `${peer.name} to finish its ${tag} jobs`,
    async () => {
      if (worker.exited()) throw new Error(`${worker.name} exited:\n${tail(worker.logFile)}`);
      return (await scalar<number>(bench.db, peer.unfinishedSql)) === 0;
    },
    timeoutMs,
  );
  const first = new Map<number, Run>();
  for (const run of await worker.report()) {
    if (run.tag === tag && !first.has(run.n)) first.set(run.n, run);
  }
  if (first.size !== count) throw new Error(`${peer.name} ran ${first.size} of the ${count} ${tag} jobs`);
  return [...first.values()];
}

// ---------------------------------------------------------------------------------------------
// the peer's process

interface PeerProcess {
  name: string;
  pid: number;
  logFile: string;
  exited(): boolean;
  /** The runs its handlers ended since the last report. */
  report(): Promise<Run[]>;
  /** Asks it to stop its worker and exit, and waits for that (SIGKILL after a minute). */
  stop(): Promise<void>;
}

interface Message {
  type: 'ready' | 'report';
  runs?: Run[];
}

/** Settings that would change the peer's database or configuration if the caller's shell exported them. */
const STRIPPED_ENV = /^(DATABASE_URL$|GRAPHILE_WORKER_|PG)/;

/**
 * Starts `node <peer script>` against the run's database, its output in
 * bench/results/logs/<name>.log and an IPC channel to the bench, and resolves once its worker runs.
 * Its working directory is the run's scratch folder: graphile-worker would read a crontab, a
 * tasks folder or an rc file from it.
 */
async function startPeer(bench: Bench, peer: Peer, name: string): Promise<PeerProcess> {
  const logFile = join(bench.logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !STRIPPED_ENV.test(key)));
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [peer.script], {
      cwd: bench.workDir,
      env: {
        ...inherited,
        DATABASE_URL: bench.adminUrl,
        PEER_TASK: TASK,
        PEER_SETTINGS: JSON.stringify(peer.settings),
      },
      stdio: ['ignore', fd, fd, 'ipc'],
    });
  } finally {
    closeSync(fd);
  }
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolve();
    }),
  );
  const process_: PeerProcess = {
    name,
    pid: child.pid!,
    logFile,
    exited: () => exitCode !== undefined,
    report: async () => {
      const reply = nextMessage(child, 'report', 30_000);
      child.send({ type: 'report' });
      return (await reply).runs ?? [];
    },
    stop: async () => {
      if (exitCode !== undefined) return;
      child.send({ type: 'stop' });
      const timer = setTimeout(() => {
        log(`${name} did not stop within a minute: SIGKILL`);
        child.kill('SIGKILL');
      }, 60_000);
      await exited;
      clearTimeout(timer);
      if (exitCode !== 0) log(`${name} exited with code ${exitCode}; its log: ${logFile}`);
    },
  };
  try {
    await nextMessage(child, 'ready', 120_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(
      `${name} did not start: ${error instanceof Error ? error.message : String(error)}\n${tail(logFile)}`,
      { cause: error },
    );
  }
  return process_;
}

/** The child's next message of this type; rejects if it exits first or nothing comes in time. */
function nextMessage(child: ChildProcess, type: Message['type'], timeoutMs: number): Promise<Message> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Message) => {
      if (message.type !== type) return;
      done();
      resolve(message);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`it exited (code ${code}) before its '${type}'`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no '${type}' within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
