import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { ExecutionRepository, ExecutionWithOutputTail } from '../../executions/application/execution.repository.js';
import type { RetentionAlarm } from '../../executions/application/retention-alarms.js';
import { behindMs } from '../../executions/domain/retention-health.js';
import type { ClusterAlertEvent } from '../../jobs/domain/job-alerts.js';
import { Clock } from '../../shared/domain/clock.js';
import { AlertPayload, AlertRun, DeliveryEvent } from '../domain/delivery.js';

/** How much of a run's output an alert carries: its end, where the error usually is. */
const OUTPUT_TAIL_BYTES = 2048;

/** What an operator should do on each retention alert. */
const RETENTION_TODO: Record<ClusterAlertEvent, string> = {
  retention_failed:
    'Retention passes fail, so finished runs past ORBIT_RETENTION_DAYS stay and the history grows. Read the error ' +
    "and the nodes' log (RetentionService) and fix its cause; passes go on every ORBIT_RETENTION_INTERVAL_SECONDS, " +
    'and the first that succeeds and leaves nothing overdue sends retention_recovered.',
  retention_behind:
    'A successful pass left runs it should have deleted more than two retention intervals ago: something holds them ' +
    '(look for old transactions in pg_stat_activity, by xact_start, and end them) or the passes do not keep up ' +
    '(orbit_retention_last_pass_duration_seconds against the interval). orbit_retention_behind_seconds shows how ' +
    'far behind; retention_recovered follows once a pass leaves none.',
  retention_recovered: 'Nothing: retention passes succeed again and leave no run past its deletion time.',
};

/** One alert to say: the alert event, the stream event it comes from, and its job's name. */
export interface AlertToSay {
  alert: DeliveryEvent;
  event: OrbitEvent;
  jobName: string;
}

/** Builds what alerts say, from the stream events and the runs as stored: one query for a whole batch. */
@Injectable()
export class AlertPayloads {
  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly executions: ExecutionRepository,
  ) {}

  async forEvents(alerts: readonly AlertToSay[]): Promise<AlertPayload[]> {
    const ids = [...new Set(alerts.map(({ event }) => runOf(event)).filter((id) => id !== null))];
    // as many characters hold at least as many bytes: the byte tail is cut from them
    const runs = await this.executions.findWithOutputTails(ids, OUTPUT_TAIL_BYTES);
    const timestamp = this.clock.now().toISOString();
    return alerts.map(({ alert, event, jobName }) => {
      const runId = runOf(event);
      return {
        event: alert,
        timestamp,
        job: { id: event.jobId, name: jobName },
        slot: event.slot?.toISOString() ?? null,
        run: runId ? alertRunOf(runId, event, runs.get(runId)) : null,
        links: this.links(event.jobId, runId),
      };
    });
  }

  /** A retention alert: no job, no run; what the health became and what to do. */
  forRetention({ event, pass, health, rule }: RetentionAlarm): AlertPayload {
    const iso = (at: Date | null) => at?.toISOString() ?? null;
    return {
      event,
      timestamp: this.clock.now().toISOString(),
      job: null,
      slot: null,
      run: null,
      links: this.links(null, null),
      retention: {
        passEndedAt: pass.at.toISOString(),
        error: health.lastError,
        failingSince: iso(health.failingSince),
        lastSuccessAt: iso(health.lastSuccessAt),
        oldestOverdueFinishedAt: iso(health.overdueSince),
        behindSeconds: Math.round(behindMs(health, rule) / 1000),
        rule: { days: rule.days, keepPerJob: rule.keepPerJob, intervalSeconds: rule.intervalSeconds },
        todo: RETENTION_TODO[event],
      },
    };
  }

  forTest(): AlertPayload {
    return {
      event: 'test',
      timestamp: this.clock.now().toISOString(),
      job: null,
      slot: null,
      run: null,
      links: this.links(null, null),
    };
  }

  private links(jobId: string | null, executionId: string | null): AlertPayload['links'] {
    const ui = `${this.config.publicUrl}/ui`;
    return {
      dashboard: `${ui}/`,
      job: jobId ? `${ui}/jobs/${jobId}` : null,
      run: executionId ? `${ui}/executions/${executionId}` : null,
    };
  }
}

/** The run an event is about: its own, or for a slot FORBID skipped the one that was active. */
function runOf(event: OrbitEvent): string | null {
  if (event.executionId) return event.executionId;
  const active = event.type === 'slot.skipped' ? event.detail?.['activeExecutionId'] : undefined;
  return typeof active === 'string' ? active : null;
}

/**
 * The run as an alert shows it. A status change's event says what the run became at that
 * change (a later change may already be stored); any other event shows the run as stored.
 */
function alertRunOf(id: string, event: OrbitEvent, stored: ExecutionWithOutputTail | undefined): AlertRun {
  const execution = stored?.execution;
  const changed = event.to !== null && event.executionId === id;
  const startedAt = execution?.startedAt ?? null;
  const finishedAt = execution?.finishedAt ?? null;
  return {
    id,
    status: (changed ? event.to : execution?.status) ?? 'UNKNOWN',
    attempt: (changed ? event.attempt : execution?.attempt) ?? 1,
    trigger: (changed ? event.trigger : execution?.trigger) ?? 'SCHEDULE',
    scheduledFor: execution?.scheduledFor?.toISOString() ?? null,
    startedAt: startedAt?.toISOString() ?? null,
    finishedAt: finishedAt?.toISOString() ?? null,
    durationMs: startedAt && finishedAt ? finishedAt.getTime() - startedAt.getTime() : null,
    exitCode: changed ? event.exitCode : (execution?.exitCode ?? null),
    errorMessage: changed ? event.errorMessage : (execution?.errorMessage ?? null),
    output: tail(stored?.outputTail ?? ''),
  };
}

/** The last OUTPUT_TAIL_BYTES of `text`, cut at a character boundary. */
function tail(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= OUTPUT_TAIL_BYTES) return text;
  let start = bytes.length - OUTPUT_TAIL_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}
