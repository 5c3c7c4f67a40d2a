import { Injectable } from '@nestjs/common';

/** A run a worker holds now. */
export interface HeldRun {
  id: string;
  jobId: string;
  /** Null only when its job went meanwhile. */
  jobName: string | null;
  startedAt: Date;
}

/** A run a worker held at some time in a window: running still, or finished. */
export interface LaneRun extends HeldRun {
  status: string;
  /** Null while it runs. */
  finishedAt: Date | null;
}

/**
 * The runs workers hold and held: implemented by the executions module, which owns the runs.
 * Workers are shared by every team; with `teams`, only the runs of those teams' jobs are answered.
 */
export abstract class WorkerRunsSource {
  /** Each worker's RUNNING executions, oldest first; a worker that runs none is absent. */
  abstract runningOn(workerIds: readonly string[], teams?: readonly string[]): Promise<Map<string, HeldRun[]>>;
  /** The runs the worker held at some time in [from, to), by start, at most `limit`. */
  abstract heldBetween(
    workerId: string,
    from: Date,
    to: Date,
    limit: number,
    teams?: readonly string[],
  ): Promise<LaneRun[]>;
}

/**
 * Where the workers module reads the runs of its workers. The executions module imports this
 * one, so it binds its source here (as it binds the jobs module's JobRuns) instead of this module
 * depending on it.
 */
@Injectable()
export class WorkerRuns extends WorkerRunsSource {
  private source: WorkerRunsSource | undefined;

  bind(source: WorkerRunsSource): void {
    this.source = source;
  }

  runningOn(workerIds: readonly string[], teams?: readonly string[]): Promise<Map<string, HeldRun[]>> {
    return this.bound().runningOn(workerIds, teams);
  }

  heldBetween(workerId: string, from: Date, to: Date, limit: number, teams?: readonly string[]): Promise<LaneRun[]> {
    return this.bound().heldBetween(workerId, from, to, limit, teams);
  }

  private bound(): WorkerRunsSource {
    if (!this.source) throw new Error('No source of runs is bound to WorkerRuns: the executions module binds it');
    return this.source;
  }
}
