import { Injectable } from '@nestjs/common';

/** A run a worker holds now. */
export interface HeldRun {
  id: string;
  jobId: string;
  /** Null only when its job went meanwhile. */
  jobName: string | null;
  startedAt: Date;
}

/** The runs workers hold now: implemented by the executions module, which owns the runs. */
export abstract class WorkerRunsSource {
  /** Each worker's RUNNING executions, oldest first; a worker that runs none is absent. */
  abstract runningOn(workerIds: readonly string[]): Promise<Map<string, HeldRun[]>>;
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

  runningOn(workerIds: readonly string[]): Promise<Map<string, HeldRun[]>> {
    if (!this.source) throw new Error('No source of runs is bound to WorkerRuns: the executions module binds it');
    return this.source.runningOn(workerIds);
  }
}
