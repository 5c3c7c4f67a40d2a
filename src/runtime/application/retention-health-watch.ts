import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { RetentionAlarms } from '../../executions/application/retention-alarms.js';
import { RetentionHealthRepository } from '../../executions/application/retention-health.repository.js';
import { alertOf, healthAfter, RetentionPass } from '../../executions/domain/retention-health.js';
import type { ClusterAlertEvent } from '../../jobs/domain/job-alerts.js';
import { TransactionRunner } from '../../shared/application/transaction-runner.js';

/**
 * Keeps retention's health for the whole cluster: each pass, on any node, moves it in one short
 * transaction under the record's lock, and the alert that move gives is written in the same
 * transaction. Nodes that sweep at once take turns on the lock and each sees what the one before
 * it wrote, so a failure streak is told once, not once per node or per pass.
 */
@Injectable()
export class RetentionHealthWatch {
  private readonly logger = new Logger(RetentionHealthWatch.name);

  constructor(
    private readonly config: OrbitConfig,
    private readonly transactions: TransactionRunner,
    private readonly health: RetentionHealthRepository,
    private readonly alarms: RetentionAlarms,
  ) {}

  /** Records the pass; answers the alert it gave, if any. */
  async passed(pass: RetentionPass): Promise<ClusterAlertEvent | null> {
    const { retentionDays: days, retentionIntervalSeconds: intervalSeconds, retentionKeepPerJob } = this.config;
    const rule = { days, intervalSeconds, keepPerJob: retentionKeepPerJob };
    const event = await this.transactions.run(async () => {
      const before = await this.health.lock();
      const after = healthAfter(before, pass, rule);
      await this.health.save(after, pass.at);
      const alert = alertOf(before, after, rule);
      if (alert !== null) await this.alarms.raise({ event: alert, pass, health: after, rule });
      return alert;
    });
    if (event === 'retention_recovered') this.logger.log('Retention health: recovered');
    else if (event !== null) this.logger.warn(`Retention health: ${event}`);
    return event;
  }
}
