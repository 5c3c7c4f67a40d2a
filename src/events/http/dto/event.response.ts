import { ApiProperty } from '@nestjs/swagger';
import { isoTime } from '../../../shared/http/iso-time.js';
import { EVENT_TYPES, OrbitEvent } from '../../domain/orbit-event.js';

const forExecutions = (what: string) => `${what}; null on job events`;

export class EventResponse {
  @ApiProperty({ example: 4211, description: 'The position in the stream: strictly increasing, with gaps' })
  seq!: number;
  @ApiProperty({ enum: EVENT_TYPES, example: 'execution.failed' })
  type!: string;
  @ApiProperty({
    example: '2026-11-30T10:00:01.250Z',
    description:
      "The change's own instant: the execution's createdAt, startedAt or finishedAt; the job's updatedAt or deletion time",
  })
  at!: string;
  @ApiProperty({ format: 'uuid', example: '0b7d4c1e-3f4a-4f43-9a53-6a1f2f1f5a10' })
  jobId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: forExecutions('The execution') })
  executionId!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'RUNNING',
    description: forExecutions('The status before; also null when the execution was created'),
  })
  from!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'FAILED', description: forExecutions('The status after') })
  to!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1, description: forExecutions('The attempt') })
  attempt!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'SCHEDULE',
    description: forExecutions('MANUAL, SCHEDULE or RETRY'),
  })
  trigger!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1 })
  exitCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'Command exited with code 1' })
  errorMessage!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'host-a:4242:1f2e', description: 'The worker that ran it' })
  workerId!: string | null;
  @ApiProperty({
    example: true,
    description:
      'On execution.failed: true when a retry was queued with the failure ("will retry"), false for a final failure',
  })
  retryQueued!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'timeout',
    description: 'On execution.failed, when its writer knew more than the message: timeout or worker_lost',
  })
  cause!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-30T10:00:00.000Z',
    description: 'On slot events (slot.skipped, slot.missed, slot.late): the schedule slot',
  })
  slot!: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { activeExecutionId: '7f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b', activeStatus: 'RUNNING' },
    description:
      'What an appended event adds: on slot.skipped the run that was active; on slot.missed the policy and the missed slots; on slot.late and execution.long_running the limit that passed',
  })
  detail!: Record<string, unknown> | null;

  static from(e: OrbitEvent): EventResponse {
    return {
      seq: e.seq,
      type: e.type,
      at: isoTime(e.at),
      jobId: e.jobId,
      executionId: e.executionId,
      from: e.from,
      to: e.to,
      attempt: e.attempt,
      trigger: e.trigger,
      exitCode: e.exitCode,
      errorMessage: e.errorMessage,
      workerId: e.workerId,
      retryQueued: e.retryQueued,
      cause: e.cause,
      slot: e.slot ? isoTime(e.slot) : null,
      detail: e.detail,
    };
  }
}

export class EventPageResponse {
  @ApiProperty({ type: [EventResponse] })
  items!: EventResponse[];
  @ApiProperty({
    example: 4211,
    description:
      'Pass it as `after` for the next page: the seq of the last item, or the `after` asked for when the page is empty',
  })
  nextAfter!: number;
}
