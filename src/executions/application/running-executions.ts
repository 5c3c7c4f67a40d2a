import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { HeldRun, WorkerRunsSource } from '../../workers/application/worker-runs.js';

/** A RUNNING execution and the worker that holds it. */
export interface RunningExecution {
  id: string;
  jobId: string;
  workerId: string;
  startedAt: Date;
}

/** A read model of this module: the executions that run now on some workers. */
export abstract class RunningExecutions {
  /** The RUNNING executions held by any of the workers, oldest start first. */
  abstract onWorkers(workerIds: readonly string[]): Promise<RunningExecution[]>;
}

/** What each worker runs now, with its jobs' names: bound to the workers module's WorkerRuns. */
@Injectable()
export class WorkerRunsFromExecutions extends WorkerRunsSource {
  constructor(
    private readonly running: RunningExecutions,
    private readonly jobs: JobsService,
  ) {
    super();
  }

  async runningOn(workerIds: readonly string[]): Promise<Map<string, HeldRun[]>> {
    const runs = workerIds.length === 0 ? [] : await this.running.onWorkers(workerIds);
    const names = await this.jobs.namesOf([...new Set(runs.map((run) => run.jobId))]);
    const held = new Map<string, HeldRun[]>();
    for (const { workerId, id, jobId, startedAt } of runs) {
      const list = held.get(workerId) ?? [];
      list.push({ id, jobId, jobName: names.get(jobId) ?? null, startedAt });
      held.set(workerId, list);
    }
    return held;
  }
}
