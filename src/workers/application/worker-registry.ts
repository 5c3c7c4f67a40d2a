export interface WorkerInfo {
  id: string;
  host: string;
  pid: number;
  version: string;
  concurrency: number;
  startedAt: Date;
  lastHeartbeatAt: Date;
  running: number;
}

/** Which worker processes exist, and when each last said so. */
export abstract class WorkerRegistry {
  abstract register(worker: WorkerInfo): Promise<void>;
  abstract beat(id: string, running: number, now: Date): Promise<void>;
  abstract stopped(id: string, now: Date): Promise<void>;
  /** Workers not stopped that beat after `since`, newest heartbeat first. */
  abstract recent(since: Date): Promise<WorkerInfo[]>;
}
