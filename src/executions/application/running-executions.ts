import { Injectable } from '@nestjs/common';
import { JobsService } from '../../jobs/application/jobs.service.js';
import { HeldRun, LaneRun, WorkerRunsSource } from '../../workers/application/worker-runs.js';

/** A RUNNING execution and the worker that holds it. */
export interface RunningExecution {
  id: string;
  jobId: string;
  workerId: string;
  startedAt: Date;
}

/** An execution a worker started, running still or finished. */
export interface StartedExecution {
  id: string;
  jobId: string;
  status: string;
  startedAt: Date;
  finishedAt: Date | null;
}

/**
 * A read model of this module: the executions that run now on some workers, and those a worker
 * ran; of these teams' jobs only, when `teams` is given.
 */
export abstract class RunningExecutions {
  /** The RUNNING executions held by any of the workers, oldest start first. */
  abstract onWorkers(workerIds: readonly string[], teams?: readonly string[]): Promise<RunningExecution[]>;
  /** The executions the worker held at some time in [from, to), by start, at most `limit`. */
  abstract heldBetween(
    workerId: string,
    from: Date,
    to: Date,
    limit: number,
    teams?: readonly string[],
  ): Promise<StartedExecution[]>;
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

  async runningOn(workerIds: readonly string[], teams?: readonly string[]): Promise<Map<string, HeldRun[]>> {
    const runs = workerIds.length === 0 || teams?.length === 0 ? [] : await this.running.onWorkers(workerIds, teams);
    const names = await this.jobs.namesOf([...new Set(runs.map((run) => run.jobId))]);
    const held = new Map<string, HeldRun[]>();
    for (const { workerId, id, jobId, startedAt } of runs) {
      const list = held.get(workerId) ?? [];
      list.push({ id, jobId, jobName: names.get(jobId) ?? null, startedAt });
      held.set(workerId, list);
    }
    return held;
  }

  async heldBetween(
    workerId: string,
    from: Date,
    to: Date,
    limit: number,
    teams?: readonly string[],
  ): Promise<LaneRun[]> {
    if (teams?.length === 0) return [];
    const runs = await this.running.heldBetween(workerId, from, to, limit, teams);
    const names = await this.jobs.namesOf([...new Set(runs.map((run) => run.jobId))]);
    return runs.map((run) => ({ ...run, jobName: names.get(run.jobId) ?? null }));
  }
}
