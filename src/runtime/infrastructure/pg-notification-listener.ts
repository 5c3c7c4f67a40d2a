import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Database } from '../../shared/infrastructure/database.js';
import { ListenConnection } from '../../shared/infrastructure/listen-connection.js';
import { SchedulerService } from '../application/scheduler.service.js';
import { WorkerService } from '../application/worker.service.js';

export const CHANNELS = {
  queued: 'orbit_executions_queued',
  cancelled: 'orbit_execution_cancelled',
  jobsChanged: 'orbit_jobs_changed',
} as const;

/**
 * LISTENs for the database triggers' notifications and wakes the worker and the scheduler;
 * each time the connection listens again after a drop it wakes both, since notifications sent
 * meanwhile are lost.
 */
@Injectable()
export class PgNotificationListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly connection: ListenConnection;

  constructor(db: Database, worker: WorkerService, scheduler: SchedulerService) {
    this.connection = new ListenConnection(
      db.url,
      Object.values(CHANNELS),
      'orbit-listen',
      new Logger(PgNotificationListener.name),
      {
        notified(channel, payload) {
          if (channel === CHANNELS.queued) worker.wake();
          else if (channel === CHANNELS.jobsChanged) scheduler.wake();
          else if (channel === CHANNELS.cancelled && payload) worker.cancelled(payload);
        },
        listening() {
          worker.wake();
          scheduler.wake();
        },
      },
    );
  }

  onApplicationBootstrap(): Promise<void> {
    return this.connection.open();
  }

  onApplicationShutdown(): Promise<void> {
    return this.connection.close();
  }
}
