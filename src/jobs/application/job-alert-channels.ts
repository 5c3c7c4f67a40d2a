import { Injectable } from '@nestjs/common';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import type { JobAlert } from '../domain/job-alerts.js';

/** Says which channel names exist: implemented by the alerts module, which owns the channels. */
export abstract class AlertChannelDirectory {
  /**
   * The names of `names` that are no channel of `team`. Inside the caller's transaction, the channels
   * found stay locked (shared) until it ends, so none goes while a job starts naming it.
   */
  abstract missing(names: readonly string[], team: string): Promise<string[]>;
}

/**
 * Where the jobs module checks a job's alert rules against the channels. The alerts module
 * imports this one, so it binds its directory here (as the removal guards do) instead of
 * this module depending on it.
 */
@Injectable()
export class JobAlertChannels {
  private directory: AlertChannelDirectory | undefined;

  bind(directory: AlertChannelDirectory): void {
    this.directory = directory;
  }

  /** Throws a 400 naming the first rule whose channel is not one of the job's team (another team's is not shown). */
  async check(alerts: readonly JobAlert[], team: string): Promise<void> {
    if (alerts.length === 0) return;
    const names = alerts.map((alert) => alert.channel);
    const missing = new Set(this.directory ? await this.directory.missing(names, team) : names);
    const index = alerts.findIndex((alert) => missing.has(alert.channel));
    if (index >= 0) {
      const field = `alerts[${index}].channel`;
      throw new InvalidArgumentError(
        `${field}: the team ${team} has no channel named '${alerts[index]!.channel}'`,
        field,
      );
    }
  }
}
