import type { LauncherKind } from '../../config/orbit-config.js';
import type { Labels } from '../../shared/domain/labels.js';

export interface WorkerInfo {
  id: string;
  host: string;
  pid: number;
  version: string;
  concurrency: number;
  startedAt: Date;
  lastHeartbeatAt: Date;
  running: number;
  labels: Labels;
  /** Told to stop claiming (POST /workers/:id/drain); it finishes what it runs. */
  draining: boolean;
  /** What starts its commands (ORBIT_LAUNCHER, with `auto` resolved). */
  launcher: LauncherKind;
  /** Its host's load average over the last minute, at the last heartbeat; null from a version that did not say. */
  loadAverage: number | null;
  /** The CPUs its process may use (os.availableParallelism()); null from a version that did not say. */
  cpus: number | null;
}

/** Which worker processes exist, and when each last said so. */
export abstract class WorkerRegistry {
  abstract register(worker: WorkerInfo): Promise<void>;
  abstract beat(id: string, running: number, now: Date, loadAverage: number): Promise<void>;
  abstract stopped(id: string, now: Date): Promise<void>;
  /** Sets whether a worker not stopped claims; answers false when there is no such worker. */
  abstract setDraining(id: string, draining: boolean): Promise<boolean>;
  /** Workers not stopped that beat after `since`, newest heartbeat first. */
  abstract recent(since: Date): Promise<WorkerInfo[]>;
}
