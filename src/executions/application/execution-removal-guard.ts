import { Injectable } from '@nestjs/common';
import { JobRemovalGuard } from '../../jobs/application/job-removal-guard.js';
import { Clock } from '../../shared/domain/clock.js';
import { ConflictError } from '../../shared/domain/domain-errors.js';
import { ExecutionStatus } from '../domain/execution-status.js';
import { ExecutionRepository } from './execution.repository.js';

/** A job may go only while none of its executions runs; the queued ones are cancelled with it. */
@Injectable()
export class ExecutionRemovalGuard extends JobRemovalGuard {
  constructor(
    private readonly executions: ExecutionRepository,
    private readonly clock: Clock,
  ) {
    super();
  }

  async beforeRemoval(jobId: string, actor: string): Promise<void> {
    const active = await this.executions.findActiveByJob(jobId);
    const running = active.find((e) => e.status === ExecutionStatus.RUNNING);
    if (running) {
      throw new ConflictError(
        `Job ${jobId} has a running execution (${running.id}); cancel it or wait for it to finish`,
      );
    }
    for (const execution of active) {
      execution.cancel(this.clock.now(), { by: 'job_deletion', actor });
      await this.executions.save(execution);
    }
  }
}
