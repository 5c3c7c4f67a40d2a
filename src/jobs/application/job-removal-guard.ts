import { Injectable } from '@nestjs/common';

/**
 * What must happen to what refers to a job before the job goes: the executions module cancels
 * the job's queued executions, and refuses while one runs. Implemented by the modules that
 * refer to jobs, which register with JobRemovalGuards, so that jobs depend on none of them.
 */
export abstract class JobRemovalGuard {
  /**
   * Inside the removal's transaction, the job's row locked: throws ConflictError to refuse it.
   * `actor`: the name of the token that deletes the job.
   */
  abstract beforeRemoval(jobId: string, actor: string): Promise<void>;
}

/**
 * The guards the outer modules registered. A Nest module cannot bind a port of its own to a
 * provider of a module that imports it (that is a module cycle), so the implementations come
 * to this registry instead, from the modules that declare them.
 */
@Injectable()
export class JobRemovalGuards {
  private readonly guards: JobRemovalGuard[] = [];

  register(guard: JobRemovalGuard): void {
    this.guards.push(guard);
  }

  async beforeRemoval(jobId: string, actor: string): Promise<void> {
    for (const guard of this.guards) await guard.beforeRemoval(jobId, actor);
  }
}
