import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { CHANNEL_ALERT_EVENTS } from '../../../jobs/domain/job-alerts.js';
import { ListQueryDto } from '../../../shared/http/list-query.dto.js';
import type { DeliveryView } from '../../application/delivery.repository.js';
import { DELIVERY_STATUSES, statusOnly } from '../../domain/delivery.js';
import type { DeliveryStatus } from '../../domain/delivery.js';

export class ListDeliveriesQuery extends ListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this channel's" })
  @IsOptional()
  @IsUUID()
  channel?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this job's" })
  @IsOptional()
  @IsUUID()
  jobId?: string;

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class DeliveryAttemptResponse {
  @ApiProperty({ example: 1 })
  attempt!: number;
  @ApiProperty({ example: '2026-12-01T10:00:01.000Z' })
  at!: string;
  @ApiProperty({ type: Number, nullable: true, example: 200, description: "webhook and slack: the answer's status" })
  httpStatus!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "email: the SMTP server's answer (below admin: its reply code only, such as 250)",
  })
  smtpResponse!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      "Why it failed. Below admin: the status only (HTTP 500, SMTP 535) or Orbit's own words, never the " +
      "target's answer nor the addresses it resolved to",
  })
  error!: string | null;
  @ApiProperty({ example: 42 })
  latencyMs!: number;
}

export class DeliveryResponse {
  @ApiProperty({ format: 'uuid', description: 'Also the webhook-id (msg_<id>), the same on every retry' })
  id!: string;
  @ApiProperty({ format: 'uuid' })
  channelId!: string;
  @ApiProperty({ example: 'ops-webhook' })
  channelName!: string;
  @ApiProperty({ enum: [...CHANNEL_ALERT_EVENTS, 'test'] })
  event!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' })
  jobId!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' })
  executionId!: string | null;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'PENDING until delivered, or FAILED once retries ran out' })
  status!: string;
  @ApiProperty({ example: '2026-12-01T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ type: String, nullable: true })
  finishedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'PENDING: when the next attempt is due' })
  nextAttemptAt!: string | null;
  @ApiProperty({ type: [DeliveryAttemptResponse] })
  attempts!: DeliveryAttemptResponse[];

  /** `detailed` (admin): each attempt as recorded; otherwise its status only. */
  static from(view: DeliveryView, detailed: boolean): DeliveryResponse {
    return {
      id: view.id,
      channelId: view.channelId,
      channelName: view.channelName,
      event: view.event,
      jobId: view.jobId,
      executionId: view.executionId,
      status: view.status,
      createdAt: view.createdAt.toISOString(),
      finishedAt: view.finishedAt?.toISOString() ?? null,
      nextAttemptAt: view.nextAttemptAt?.toISOString() ?? null,
      attempts: view.attempts
        .map((attempt) => (detailed ? attempt : statusOnly(attempt)))
        .map(({ ok: _ok, ...attempt }) => ({ ...attempt, at: attempt.at.toISOString() })),
    };
  }
}

export class DeliveryPageResponse {
  @ApiProperty({ type: [DeliveryResponse] })
  items!: DeliveryResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}
