import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { ALERT_EVENTS, CHANNEL_ALERT_EVENTS, DEFAULT_ALERT_ON } from '../../domain/job-alerts.js';
import type { AlertEvent } from '../../domain/job-alerts.js';

/** One alert rule of a job, in requests and answers alike. */
export class JobAlertDto {
  @ApiProperty({ example: 'ops-webhook', description: 'The name of a channel (see /channels)' })
  @IsString()
  channel!: string;

  @ApiPropertyOptional({
    enum: ALERT_EVENTS,
    isArray: true,
    default: DEFAULT_ALERT_ON,
    example: ['failed', 'recovered'],
    description: 'What to alert on; default: failed (no retry left)',
  })
  @IsOptional()
  @IsArray()
  // the cluster's events pass here, so that the domain's refusal says where they belong
  @IsIn(CHANNEL_ALERT_EVENTS, { each: true })
  on?: AlertEvent[];
}
