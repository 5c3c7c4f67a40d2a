import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import type { OrbitEvent } from '../../events/domain/orbit-event.js';
import { ExecutionOutputRepository } from '../../executions/application/execution-output.repository.js';
import { ExecutionRepository } from '../../executions/application/execution.repository.js';
import { Clock } from '../../shared/domain/clock.js';
import { AlertPayload, DeliveryEvent } from '../domain/delivery.js';

/** How much of a run's output an alert carries: its end, where the error usually is. */
const OUTPUT_TAIL_BYTES = 2048;

/** Builds what an alert says, from the stream event and the run as stored. */
@Injectable()
export class AlertPayloads {
  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly executions: ExecutionRepository,
    private readonly outputs: ExecutionOutputRepository,
  ) {}

  async forEvent(alert: DeliveryEvent, event: OrbitEvent, jobName: string): Promise<AlertPayload> {
    const executionId = event.executionId!;
    const [execution, output] = await Promise.all([
      this.executions.findById(executionId),
      this.outputs.find(executionId),
    ]);
    const startedAt = execution?.startedAt ?? null;
    const finishedAt = execution?.finishedAt ?? null;
    return {
      event: alert,
      timestamp: this.clock.now().toISOString(),
      job: { id: event.jobId, name: jobName },
      run: {
        id: executionId,
        status: event.to ?? 'UNKNOWN',
        attempt: event.attempt ?? 1,
        trigger: event.trigger ?? 'SCHEDULE',
        scheduledFor: execution?.scheduledFor?.toISOString() ?? null,
        startedAt: startedAt?.toISOString() ?? null,
        finishedAt: finishedAt?.toISOString() ?? null,
        durationMs: startedAt && finishedAt ? finishedAt.getTime() - startedAt.getTime() : null,
        exitCode: event.exitCode,
        errorMessage: event.errorMessage,
        output: tail(output ? [output.stdout, output.stderr].filter(Boolean).join('\n') : ''),
      },
      links: this.links(event.jobId, executionId),
    };
  }

  forTest(): AlertPayload {
    return {
      event: 'test',
      timestamp: this.clock.now().toISOString(),
      job: null,
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

/** The last OUTPUT_TAIL_BYTES of `text`, cut at a character boundary. */
function tail(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= OUTPUT_TAIL_BYTES) return text;
  let start = bytes.length - OUTPUT_TAIL_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString('utf8');
}
