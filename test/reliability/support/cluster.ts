import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LauncherKind } from '../../../src/config/orbit-config.js';
import { OrbitClient } from './http.js';
import { OrbitNode, Role } from './orbit-node.js';
import { ReliabilityPostgres } from './postgres.js';
import { freePort } from './util.js';

/** An execution row as the tests read it (snake_case, straight from PostgreSQL). */
export interface ExecutionRow {
  id: string;
  job_id: string;
  status: 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  attempt: number;
  trigger: 'MANUAL' | 'SCHEDULE' | 'RETRY';
  scheduled_for: Date | null;
  retry_of: string | null;
  due_at: Date;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  exit_code: number | null;
  error_message: string | null;
  worker_id: string | null;
  lease_expires_at: Date | null;
}

/** What `queueMany` copies from a job (the API's job answer has these fields). */
export interface QueueableJob {
  id: string;
  command: string;
  maxRetries: number;
  timeoutSeconds: number;
}

export interface NodeSpec {
  name: string;
  role: Role;
  /** What starts its commands (ORBIT_LAUNCHER); Orbit's default (`auto`) when unset. */
  launcher?: LauncherKind;
  env?: Record<string, string>;
}

/**
 * What one reliability file runs on: its own PostgreSQL, a work directory for the commands,
 * and any number of Orbit nodes started from the built binary. `scenario` wraps a test body
 * so that a failure (or a timeout) prints every node's log tail; `close` kills every node
 * and removes PostgreSQL, whatever happened.
 */
export class Cluster {
  /** ORBIT_ADMIN_TOKEN of every node: a fresh 32-byte secret per file. */
  readonly token = `rel-${randomBytes(32).toString('hex')}`;
  readonly nodes: OrbitNode[] = [];
  readonly workDir: string;
  private unfinished = 0;

  private constructor(
    readonly label: string,
    readonly postgres: ReliabilityPostgres,
  ) {
    this.workDir = join(postgres.root, 'work');
    mkdirSync(this.workDir, { recursive: true, mode: 0o755 });
  }

  static async start(label: string): Promise<Cluster> {
    return new Cluster(label, await ReliabilityPostgres.start(label));
  }

  /** The environment every node gets; a node's own settings come on top. */
  baseEnv(): Record<string, string> {
    return {
      DATABASE_URL: this.postgres.url,
      HOST: '127.0.0.1',
      ORBIT_ADMIN_TOKEN: this.token,
      ORBIT_RATE_LIMIT_PER_MINUTE: '0',
      ORBIT_DATA_DIR: join(this.postgres.root, 'orbit'),
      ORBIT_WORK_DIR: this.workDir,
      ORBIT_RETRY_BACKOFF_BASE_MS: '200',
      ORBIT_RETRY_BACKOFF_MAX_MS: '2000',
    };
  }

  /** Starts the nodes at once (as an operator would start several processes) and waits until each is ready. */
  async startNodes(...specs: NodeSpec[]): Promise<OrbitNode[]> {
    const nodes: OrbitNode[] = [];
    for (const spec of specs) {
      const port = spec.role === 'worker' ? undefined : await freePort();
      const launcher: Record<string, string> = spec.launcher === undefined ? {} : { ORBIT_LAUNCHER: spec.launcher };
      const node = new OrbitNode(spec.name, spec.role, port, { ...this.baseEnv(), ...launcher, ...spec.env });
      this.nodes.push(node);
      nodes.push(node);
    }
    await Promise.all(nodes.map((node) => node.ready()));
    return nodes;
  }

  async startNode(spec: NodeSpec): Promise<OrbitNode> {
    const [node] = await this.startNodes(spec);
    return node!;
  }

  client(node: OrbitNode): OrbitClient {
    return new OrbitClient(node.url, this.token);
  }

  /** The node whose worker has this id. */
  nodeOfWorker(workerId: string | null): OrbitNode | undefined {
    return this.nodes.find((node) => node.workerId !== undefined && node.workerId === workerId);
  }

  sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.postgres.sql<T>(text, params);
  }

  /**
   * Queues `count` manual executions of a job in one INSERT (one statement, one notification:
   * every worker races for the same rows at once), copying the job's settings as the API would.
   */
  async queueMany(job: QueueableJob, count: number): Promise<void> {
    await this.sql(
      `INSERT INTO executions (id, job_id, command, max_retries, timeout_seconds, status, attempt, trigger, due_at, created_at)
       SELECT gen_random_uuid(), $1, $2, $3, $4, 'QUEUED', 1, 'MANUAL', clock_timestamp(), clock_timestamp()
       FROM generate_series(1, $5)`,
      [job.id, job.command, job.maxRetries, job.timeoutSeconds, count],
    );
  }

  executionsOfJob(jobId: string): Promise<ExecutionRow[]> {
    return this.sql<ExecutionRow>('SELECT * FROM executions WHERE job_id = $1 ORDER BY created_at, id', [jobId]);
  }

  /** Runs a test body; when it throws, the logs are printed by `close` (which a timeout reaches too). */
  async scenario<T>(body: () => Promise<T>): Promise<T> {
    this.unfinished++;
    const result = await body();
    this.unfinished--;
    return result;
  }

  /** Kills every node (SIGTERM, then SIGKILL) and removes PostgreSQL; prints the logs if a scenario did not finish. */
  async close(): Promise<void> {
    if (this.unfinished > 0) console.error(this.report());
    await Promise.all(this.nodes.map((node) => node.stop(15_000).catch(() => undefined)));
    await this.postgres.destroy();
  }

  /** Every node's log tail and PostgreSQL's. */
  report(lines = 80): string {
    const parts = [`Reliability ${this.label}: a scenario failed or timed out. Logs:`];
    for (const node of this.nodes) {
      const state = node.exit ? `exited (code ${node.exit.code}, signal ${node.exit.signal})` : 'alive';
      parts.push(`--- node ${node.name} (${node.role}, pid ${node.pid}, worker ${node.workerId ?? '-'}, ${state}) ---`);
      parts.push(node.tail(lines));
    }
    parts.push(`--- PostgreSQL (port ${this.postgres.port}) ---`, this.postgres.tail());
    return parts.join('\n');
  }
}

/** A file's cluster, started in beforeAll and closed in afterAll even when the start itself failed. */
export function useCluster(label: string, startTimeoutMs = 120_000): () => Cluster {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    cluster = await Cluster.start(label);
  }, startTimeoutMs);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);
  return () => {
    if (!cluster) throw new Error('the cluster did not start (see beforeAll)');
    return cluster;
  };
}
