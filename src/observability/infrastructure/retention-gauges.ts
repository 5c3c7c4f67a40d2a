import { Gauge, Registry } from 'prom-client';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionRetentionRepository } from '../../executions/application/execution-retention.repository.js';
import { RetentionHealthRepository } from '../../executions/application/retention-health.repository.js';
import { behindMs } from '../../executions/domain/retention-health.js';

const unixSeconds = (at: Date | null) => (at === null ? 0 : at.getTime() / 1000);

/**
 * What retention keeps and how far behind it is, read from the shared database at scrape time
 * (so on every node, API nodes too): one index probe per final status, and the one row of
 * retention's health.
 */
export function retentionGauges(
  registry: Registry,
  config: OrbitConfig,
  retention: ExecutionRetentionRepository,
  health: RetentionHealthRepository,
): void {
  new Gauge({
    name: 'orbit_retention_oldest_kept_timestamp_seconds',
    help: 'When the oldest run the history still holds was created (Unix time): the oldest finished execution stored; 0 when none',
    registers: [registry],
    async collect() {
      this.set(unixSeconds(await retention.oldestKept()));
    },
  });
  new Gauge({
    name: 'orbit_retention_behind_seconds',
    help:
      "How long past its deletion time the oldest run the cluster's last successful retention pass should have " +
      'deleted, and left stored, was when that pass ended; 0 when it left none',
    registers: [registry],
    async collect() {
      const rule = { days: config.retentionDays, intervalSeconds: config.retentionIntervalSeconds };
      this.set(behindMs(await health.read(), rule) / 1000);
    },
  });
}
