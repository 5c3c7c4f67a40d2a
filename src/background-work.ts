import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
  Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AlertConsumerLoop } from './alerts/application/alert-consumer-loop.js';
import { AlertDelivery } from './alerts/application/alert-delivery.js';
import { AlertRetention } from './alerts/application/alert-retention.js';
import { AlertsModule } from './alerts/alerts.module.js';
import { OrbitConfig, Role } from './config/orbit-config.js';
import { Heartbeats } from './observability/application/heartbeats.js';
import { ChainLoop } from './runtime/application/chain-loop.js';
import { LeaseReaperService } from './runtime/application/lease-reaper.service.js';
import { OverdueWatcherService } from './runtime/application/overdue-watcher.service.js';
import { PlacementSweep } from './runtime/application/placement-sweep.js';
import { RetentionService } from './runtime/application/retention.service.js';
import { SchedulerService } from './runtime/application/scheduler.service.js';
import { WorkerService } from './runtime/application/worker.service.js';
import { RuntimeModule } from './runtime/runtime.module.js';
import { BackgroundService } from './shared/application/background-loop.js';

type Find = <T>(type: Type<T>) => T;

interface BackgroundEntry {
  /** Its name in docs/how-it-runs.md, and its check in /health/ready when readiness watches it. */
  name: string;
  roles: readonly Role[];
  /** The module that holds it, loaded on those roles only. */
  module: Type;
  /** Shutdown stops stage 1 first, then 2, and so on; the services of a stage stop side by side. */
  stopStage: number;
  /** Readiness fails while it has not passed for a while (see HealthController). */
  readiness?: boolean;
  service: (find: Find) => BackgroundService;
}

/** The roles that run Orbit's background work; `api` nodes answer requests only. */
const BACKGROUND_ROLES: readonly Role[] = ['all', 'worker'];

/**
 * Every background service, the roles it runs on, and its place in the shutdown: the one list.
 * They start in this order. At shutdown the reaper stops first (a node going away reaps
 * nothing); the scheduler stops firing while the worker drains its commands, whose outcomes the
 * consumers still see; the sweeps and the alerts stop after them, so what the last runs said
 * is still delivered.
 */
export const BACKGROUND_WORK: readonly BackgroundEntry[] = [
  {
    name: 'alert retention',
    roles: BACKGROUND_ROLES,
    module: AlertsModule,
    stopStage: 5,
    service: (find) => find(AlertRetention).loop,
  },
  {
    name: 'alert delivery',
    roles: BACKGROUND_ROLES,
    module: AlertsModule,
    stopStage: 4,
    service: (find) => find(AlertDelivery).loop,
  },
  {
    name: 'alerts consumer',
    roles: BACKGROUND_ROLES,
    module: AlertsModule,
    stopStage: 4,
    service: (find) => find(AlertConsumerLoop),
  },
  {
    name: 'retention',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 3,
    service: (find) => find(RetentionService).loop,
  },
  {
    name: 'overdue watch',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 3,
    service: (find) => find(OverdueWatcherService).loop,
  },
  {
    name: 'scheduler',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 2,
    service: (find) => find(SchedulerService).loop,
  },
  {
    name: 'worker',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 2,
    readiness: true,
    service: (find) => find(WorkerService),
  },
  {
    name: 'chains consumer',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 2,
    service: (find) => find(ChainLoop),
  },
  {
    name: 'lease reaper',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 1,
    service: (find) => find(LeaseReaperService).loop,
  },
  {
    name: 'placement sweep',
    roles: BACKGROUND_ROLES,
    module: RuntimeModule,
    stopStage: 1,
    service: (find) => find(PlacementSweep).loop,
  },
];

function entriesOf(role: Role): BackgroundEntry[] {
  return BACKGROUND_WORK.filter((entry) => entry.roles.includes(role));
}

/** The modules a role loads for its background work. */
export function backgroundModulesOf(role: Role): Type[] {
  return [...new Set(entriesOf(role).map((entry) => entry.module))];
}

/**
 * Starts the node's background services after every module is up and stops them first at
 * shutdown, stage by stage, each stop waiting for its passes in flight.
 */
@Injectable()
export class BackgroundWork implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(BackgroundWork.name);
  private entries: { entry: BackgroundEntry; service: BackgroundService }[] = [];
  private started: typeof this.entries = [];

  constructor(
    private readonly config: OrbitConfig,
    private readonly modules: ModuleRef,
    private readonly heartbeats: Heartbeats,
  ) {}

  /** Every provider is built by now (the services' loops with them); readiness sees its loops before any start. */
  onModuleInit(): void {
    const find: Find = (type) => this.modules.get(type, { strict: false });
    this.entries = entriesOf(this.config.role).map((entry) => ({ entry, service: entry.service(find) }));
    for (const { entry, service } of this.entries) {
      if (entry.readiness) this.heartbeats.register(entry.name, () => service.lastPassAt());
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const started of this.entries) {
      await started.service.start();
      this.started.push(started);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const stages = [...new Set(this.started.map(({ entry }) => entry.stopStage))].sort((a, b) => a - b);
    for (const stage of stages) {
      const stopping = this.started.filter(({ entry }) => entry.stopStage === stage);
      const results = await Promise.allSettled(stopping.map(({ service }) => service.stop()));
      for (const [i, result] of results.entries()) {
        if (result.status === 'rejected') {
          this.logger.error(`Stopping the ${stopping[i]!.entry.name} failed: ${String(result.reason)}`);
        }
      }
    }
    this.started = [];
  }
}
