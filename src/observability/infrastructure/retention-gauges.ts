import { Gauge, Registry } from 'prom-client';
import { OrbitConfig } from '../../config/orbit-config.js';
import { ExecutionRetentionRepository } from '../../executions/application/execution-retention.repository.js';
import { HistoryDays } from '../../executions/application/history-days.js';
import { dayOf } from '../../executions/domain/history-day.js';
import { RetentionHealthRepository } from '../../executions/application/retention-health.repository.js';
import { behindMs } from '../../executions/domain/retention-health.js';
import { Clock } from '../../shared/domain/clock.js';

const unixSeconds = (at: Date | null) => (at === null ? 0 : at.getTime() / 1000);
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What retention keeps and how far behind it is, read from the shared database at scrape time
 * (so on every node, API nodes too): one index probe per final status and day, the one row of
 * retention's health, and the history's days from the catalog.
 */
export function retentionGauges(
  registry: Registry,
  config: OrbitConfig,
  retention: ExecutionRetentionRepository,
  health: RetentionHealthRepository,
  days: HistoryDays,
  clock: Clock,
): void {
  new Gauge({
    name: 'orbit_history_days_ahead',
    help:
      "How many UTC days after today's the history has made (its runs, events and output are stored by day of creation); " +
      'retention makes 7 ahead at each pass, and a run whose day is missing is stored apart, never refused',
    registers: [registry],
    async collect() {
      const last = (await days.list()).at(-1);
      this.set(last === undefined ? 0 : Math.max(0, (last.end.getTime() - dayOf(clock.now()).getTime()) / DAY_MS - 1));
    },
  });
  new Gauge({
    name: 'orbit_history_oldest_day_timestamp_seconds',
    help: 'When the oldest day the history still stores whole begins (Unix time); 0 when none (the history from before the days aside)',
    registers: [registry],
    async collect() {
      this.set(unixSeconds((await days.list())[0]?.start ?? null));
    },
  });
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
