import { Injectable } from '@nestjs/common';
import type { ClusterAlertEvent } from '../../jobs/domain/job-alerts.js';
import type { RetentionHealth, RetentionPass, RetentionRule } from '../domain/retention-health.js';

/** A change of retention's health to tell: the alert, the pass that made it, and the health after. */
export interface RetentionAlarm {
  event: ClusterAlertEvent;
  pass: RetentionPass;
  health: RetentionHealth;
  rule: RetentionRule & { keepPerJob: number };
}

/** Sends a retention alarm's alerts: implemented by the alerts module, which owns channels and deliveries. */
export abstract class RetentionAlarmSender {
  /** Writes the deliveries inside the caller's transaction, so that they commit with the health that gave them. */
  abstract raise(alarm: RetentionAlarm): Promise<void>;
}

/**
 * Where retention raises its alarms. The alerts module imports this one, so it binds its sender
 * here (as it binds its channel directory to the jobs module) instead of this module depending on it.
 */
@Injectable()
export class RetentionAlarms {
  private sender: RetentionAlarmSender | undefined;

  bind(sender: RetentionAlarmSender): void {
    this.sender = sender;
  }

  /** Throws while no sender is bound: an alarm nobody can send must fail the pass, not vanish. */
  raise(alarm: RetentionAlarm): Promise<void> {
    if (!this.sender) throw new Error('Retention alarm with no sender: the alerts module is not loaded');
    return this.sender.raise(alarm);
  }
}
